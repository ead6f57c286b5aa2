import { createCipheriv, createHmac, type Cipheriv } from 'node:crypto';

/** Bits of the permuted domain: ids come out in [1, 2^52], far below 2^53 (safe in JSON). */
const ID_BITS = 52;
// 2 ** (ID_BITS / 2), written out: a constant expression the bundler can drop from bundles that never permute.
const HALF = 0x400_0000;
/** Luby–Rackoff: four rounds make a strong pseudo-random permutation; six leave a margin. */
const ROUNDS = 6;

/**
 * A keyed format-preserving permutation of the integers [0, 2^52): a balanced Feistel network over
 * two 26-bit halves whose round function is AES-256 under a secret key (one block per round, about
 * a microsecond: the permutation sits on consume-session's path).
 *
 * Why: session ids must be unique per consumption and positive below 2^53 (docs/decisions.md#session-ids), and must not
 * be predictable from other ids nor reveal how many sessions the platform has consumed (SECURITY.md).
 * A Feistel network is a bijection whatever its round function, so distinct counter values always
 * give distinct ids (uniqueness rests on the counter alone, even if the key leaked); without the key
 * the outputs are indistinguishable from random 52-bit values, so a neighbour's id, a count or a
 * range cannot be derived from ids one has seen. The key must never change while ids are issued:
 * another key is another permutation, whose outputs may collide with the first's.
 */
export class IdPermutation {
  private keyed: Cipheriv | undefined;
  private readonly block = Buffer.alloc(16);

  /** @param secret read at first use, so a function that never makes an id needs none configured */
  constructor(private readonly secret: () => string) {}

  /** AES-256 in ECB mode as a raw block cipher: each 16-byte `update` is one independent block. */
  private get cipher(): Cipheriv {
    if (!this.keyed) {
      const secret = this.secret();
      if (secret.length < 32) throw new Error('the id permutation needs a secret of at least 32 characters');
      // Domain separation: the same secret text used elsewhere by mistake still yields an unrelated key.
      const key = createHmac('sha256', secret).update('session-id-permutation/v1').digest();
      this.keyed = createCipheriv('aes-256-ecb', key, null).setAutoPadding(false);
    }
    return this.keyed;
  }

  /** The image of `n` (an integer in [0, 2^52)). */
  apply(n: number): number {
    if (!Number.isSafeInteger(n) || n < 0 || n >= 2 ** ID_BITS) throw new RangeError(`not in the id domain: ${n}`);
    let left = Math.floor(n / HALF);
    let right = n % HALF;
    for (let round = 0; round < ROUNDS; round++) {
      const next = (left ^ this.round(round, right)) >>> 0;
      left = right;
      right = next;
    }
    return left * HALF + right;
  }

  /** The inverse (for tests and forensics: which counter value an id came from). */
  invert(id: number): number {
    let left = Math.floor(id / HALF);
    let right = id % HALF;
    for (let round = ROUNDS - 1; round >= 0; round--) {
      const previous = (right ^ this.round(round, left)) >>> 0;
      right = left;
      left = previous;
    }
    return left * HALF + right;
  }

  /** The round function: 26 bits of AES_key(round ‖ half ‖ 0…). */
  private round(round: number, half: number): number {
    this.block.writeUInt8(round, 0);
    this.block.writeUInt32BE(half, 1);
    return this.cipher.update(this.block).readUInt32BE(0) % HALF;
  }
}
