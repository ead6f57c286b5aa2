import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Playable } from '../catalog/index.js';

/**
 * What the play cookie proves: this browser consumed session `sid` of this game or stream, and may
 * keep playing it until `exp`. It is bound to the session id so that the token record (read
 * anyway by the page) confirms it, and to the resource so it opens nothing else.
 */
export interface PlayPass {
  /** The session id the consumption returned. */
  readonly sid: number;
  readonly kind: Playable['kind'];
  readonly id: number;
  /** Epoch seconds after which the pass is void. */
  readonly exp: number;
}

/**
 * Signs and reads play passes: `base64url(JSON) "." base64url(HMAC-SHA256)`. The secret is read
 * lazily so that pages which never touch a pass (open games) work without one configured.
 */
export class PlayPassSigner {
  constructor(private readonly secret: () => string) {}

  /** The cookie value for a pass. */
  sign(pass: PlayPass): string {
    const payload = Buffer.from(JSON.stringify({ sid: pass.sid, kind: pass.kind, id: pass.id, exp: pass.exp })).toString('base64url');
    return `${payload}.${this.mac(payload)}`;
  }

  /** The pass a cookie value carries, if its signature holds and it has not expired at `nowMs`. */
  read(value: string | undefined, nowMs: number): PlayPass | undefined {
    const [payload, mac, ...rest] = (value ?? '').split('.');
    if (!payload || !mac || rest.length > 0) return undefined;
    const want = Buffer.from(this.mac(payload), 'base64url');
    const got = Buffer.from(mac, 'base64url');
    if (got.length !== want.length || !timingSafeEqual(got, want)) return undefined;
    const pass = parsePass(Buffer.from(payload, 'base64url').toString('utf8'));
    return pass && pass.exp * 1000 > nowMs ? pass : undefined;
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.secret()).update(payload).digest('base64url');
  }
}

/** A signed payload is ours, but its shape is still checked: a secret shared by mistake must not crash. */
function parsePass(json: string): PlayPass | undefined {
  try {
    const pass = JSON.parse(json) as Partial<PlayPass>;
    const ok =
      Number.isSafeInteger(pass.sid) &&
      (pass.kind === 'game' || pass.kind === 'stream') &&
      Number.isSafeInteger(pass.id) &&
      Number.isFinite(pass.exp);
    return ok ? (pass as PlayPass) : undefined;
  } catch {
    return undefined;
  }
}
