/** A state as a badge: the word, and a colour (never the colour alone). */

/** A state as a badge (keys, endpoints, deliveries). */
export function Badge({ text, tone }: { text: string; tone: 'ok' | 'warn' | 'off' | 'bad' }) {
  return <span class={`badge ${tone}`}>{text}</span>;
}
