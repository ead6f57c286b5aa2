/** A moment as the tables show it: local, to the second, and the exact ISO time on hover (and to machines). */
import { whenExact } from './format';

/** `<time datetime title>`: the local date and time to the second, the full ISO timestamp as its title; "—" for none. */
export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <>—</>;
  return (
    <time dateTime={iso} title={iso}>
      {whenExact(iso)}
    </time>
  );
}
