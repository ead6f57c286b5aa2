/**
 * Stands in for `@smithy/core/checksum` in the Lambda bundles (an esbuild alias set in
 * `infra/functions.ts`), where the DynamoDB client takes only `Sha256` from it (SigV4 signing).
 * The package's `Sha256` is Node's crypto when it is there, else a pure-JavaScript SHA-256 that
 * Lambda's Node never needs (3 KB of every function); this is the native class alone. A bundle
 * that imports anything else from the package fails to build.
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';

type SourceData = string | ArrayBuffer | ArrayBufferView;

function toBuffer(data: SourceData): string | Buffer {
  if (typeof data === 'string') return data;
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}

/** SHA-256, or HMAC-SHA-256 with a secret, over Node's crypto (as the package's `Sha256Node`). */
export class Sha256 {
  readonly digestLength = 32;
  private hash: Hash | Hmac;
  private finished = false;

  constructor(private readonly secret?: SourceData) {
    this.hash = this.createHash();
  }

  update(data: SourceData): void {
    if (this.finished) throw new Error('Attempted to update an already finished hash.');
    this.hash.update(data as string | NodeJS.ArrayBufferView);
  }

  async digest(): Promise<Uint8Array> {
    let buf: Buffer;
    if (this.secret) {
      this.finished = true;
      buf = this.hash.digest();
    } else buf = (this.hash as Hash).copy().digest();
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  reset(): void {
    this.hash = this.createHash();
    this.finished = false;
  }

  private createHash(): Hash | Hmac {
    return this.secret ? createHmac('sha256', toBuffer(this.secret)) : createHash('sha256');
  }
}

export { Sha256 as Sha256Node };
