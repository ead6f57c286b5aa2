/**
 * Endpoint secrets sealed with AES-256-GCM under a key of the service (`WEBHOOK_SECRET_KEY`), so a
 * copy of the table holds no secret anyone can sign with. The key is derived from the service
 * secret with HKDF-SHA256; each value gets a fresh 96-bit IV; the value's place (org and endpoint)
 * is authenticated beside it, so a sealed secret moved to another endpoint's item does not open.
 * Sealed form: `v1.<iv>.<ciphertext>.<tag>`, each base64url. Nothing here logs, and no error
 * message carries a secret.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { SecretSealer } from './ports.js';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const INFO = 'gsts webhook endpoint secrets v1';

/** The AES-256-GCM {@link SecretSealer}; `serviceKey` is read on first use (the container's secret, loaded at its first request). */
export class AesGcmSealer implements SecretSealer {
  private key: Buffer | undefined;

  constructor(private readonly serviceKey: () => string) {}

  seal(secret: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.aesKey(), iv).setAAD(Buffer.from(context, 'utf8'));
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [VERSION, iv, sealed, cipher.getAuthTag()].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  open(sealed: string, context: string): string {
    const [version, iv, data, tag, ...rest] = sealed.split('.');
    if (version !== VERSION || iv === undefined || data === undefined || tag === undefined || rest.length > 0) {
      throw new Error('not a sealed webhook secret');
    }
    const ivBytes = Buffer.from(iv, 'base64url');
    const tagBytes = Buffer.from(tag, 'base64url');
    if (ivBytes.length !== IV_BYTES || tagBytes.length !== TAG_BYTES) throw new Error('not a sealed webhook secret');
    const decipher = createDecipheriv('aes-256-gcm', this.aesKey(), ivBytes, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context, 'utf8')).setAuthTag(tagBytes);
    try {
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    } catch (error) {
      // Another key, another place or a changed value: the same refusal, without the value.
      throw new Error('a sealed webhook secret did not open', { cause: error });
    }
  }

  private aesKey(): Buffer {
    this.key ??= Buffer.from(hkdfSync('sha256', this.serviceKey(), Buffer.alloc(0), INFO, 32));
    return this.key;
  }
}

/** The context a secret of an endpoint is sealed for. */
export function sealingContext(orgId: number, id: number): string {
  return `webhook:${orgId}:${id}`;
}
