/**
 * The notice of a key's exhausted window (`key.rate_limited`, shared/webhooks/): put once per
 * window by the first container that learns of it; a container refused a thousand times a second
 * writes it once (a second put of the same window, by another container, is refused by its condition).
 */
import { isoTime } from '../platform/time.js';
import type { ApiKeyRecord } from './model.js';
import type { RateNoticeStore } from './ports.js';
import type { RateWindow } from './rate-limit.js';

/** Windows remembered as noticed at most; beyond it the memory starts afresh (a notice put twice is refused by its condition). */
const MAX_NOTICED = 10_000;

/** The notices of exhausted windows this container puts. */
export class RateNotices {
  /** The windows this container has noticed exhausted, by `<key id>#<window>`: their start. */
  private readonly noticed = new Map<string, number>();

  /** @param notices where a notice is put; absent: nothing is noticed */
  constructor(private readonly notices: RateNoticeStore | undefined) {}

  /**
   * The put of the key's exhausted window's notice (`key.rate_limited`), the first time this
   * container learns of it in that window; undefined after that (a container refused a thousand
   * times a second writes it once), or without a notice store.
   */
  noticeOf(key: ApiKeyRecord, windows: readonly RateWindow[], by: RateWindow['name'], now: number): (() => Promise<unknown>) | undefined {
    const { notices } = this;
    const window = windows.find((w) => w.name === by);
    if (!notices || !window) return undefined;
    const noticed = `${key.id}#${by}`;
    if (this.noticed.get(noticed) === window.startMs) return undefined;
    if (this.noticed.size >= MAX_NOTICED) this.noticed.clear();
    this.noticed.set(noticed, window.startMs);
    const notice = {
      org_id: key.org_id,
      key_id: key.id,
      window: by,
      limit: window.limit,
      window_start: isoTime(window.startMs),
      resets_at: isoTime(window.endMs),
      at: isoTime(now),
    };
    return () =>
      notices.notice(notice).catch((error: unknown) => {
        // Not noticed after all: the next refusal tries again.
        this.noticed.delete(noticed);
        throw error;
      });
  }
}
