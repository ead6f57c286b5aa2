/**
 * The package stand-ins the Lambda bundles alias in (esbuild aliases set in `infra/functions.ts`)
 * instead of SDK and Powertools code the functions never run: cuts of every bundle and cold start
 * (figures in BENCHMARKS.md). One module for the packages imported statically: each alias takes
 * from it the names its package exports, and the bundle keeps only what it takes.
 * `lazy-stand-ins.ts` holds those the SDK imports dynamically (a bundle keeps all of such a module,
 * so they stay apart), `mcp-unused.ts` the MCP server's (its default export is another package's).
 * `test/unit/bundle-stand-ins.test.ts` holds each against the real one.
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';

/*
 * `@aws-sdk/credential-provider-node`. In Lambda the execution role's credentials are always in
 * the environment, the first place the SDK's default chain looks; the rest of that chain (SSO, shared INI files,
 * credential processes, web identity, container and instance metadata, with the STS, SSO and
 * sign-in clients they need) is never reached there, yet is about a third of every bundle and is
 * parsed at every cold start. Local runs and tests load the real chain (they are not bundled).
 */

/** Temporary credentials as the SDK wants them. */
interface EnvCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly expiration?: Date;
}

/** The SDK's `credentialDefaultProvider`: the environment's credentials, as `fromEnv` reads them. */
export function defaultProvider(_init?: unknown): () => Promise<EnvCredentials> {
  return async () => {
    const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_CREDENTIAL_EXPIRATION } = process.env;
    if (!AWS_ACCESS_KEY_ID || !AWS_SECRET_ACCESS_KEY) {
      throw new Error('No AWS credentials in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)');
    }
    return {
      accessKeyId: AWS_ACCESS_KEY_ID,
      secretAccessKey: AWS_SECRET_ACCESS_KEY,
      ...(AWS_SESSION_TOKEN ? { sessionToken: AWS_SESSION_TOKEN } : {}),
      ...(AWS_CREDENTIAL_EXPIRATION ? { expiration: new Date(AWS_CREDENTIAL_EXPIRATION) } : {}),
    };
  };
}

/*
 * `@aws-sdk/endpoint-cache`. The DynamoDB client builds one for endpoint discovery, which it never
 * uses (discovery is off unless `AWS_ENABLE_ENDPOINT_DISCOVERY` is set, and no operation requires it);
 * the package's LRU comes from `mnemonist` and `obliterator`: 7 KB of every function. This is the
 * same class over a `Map` (least recently used first), so it works the same should it be used.
 */

/** An endpoint as DescribeEndpoints answers it. */
interface Endpoint {
  readonly Address: string;
  readonly CachePeriodInMinutes: number;
}

/** An endpoint with the time it expires (ms since the epoch). */
interface EndpointWithExpiry {
  readonly Address: string;
  readonly Expires: number;
}

/** Discovered endpoints by cache key, at most `capacity` keys, the least recently used dropped first. */
export class EndpointCache {
  private readonly cache = new Map<string, EndpointWithExpiry[]>();

  constructor(private readonly capacity: number) {}

  /** One of the key's live endpoints, at random; undefined when none. */
  getEndpoint(key: string): string | undefined {
    const endpoints = this.get(key);
    if (!endpoints || endpoints.length === 0) return undefined;
    return endpoints[Math.floor(Math.random() * endpoints.length)]!.Address;
  }

  /** The key's endpoints that have not expired (an entry whose all have is emptied). */
  get(key: string): EndpointWithExpiry[] | undefined {
    if (!this.has(key)) return undefined;
    const value = this.cache.get(key)!;
    // Most recently used last, as the LRU's get does.
    this.cache.delete(key);
    this.cache.set(key, value);
    const now = Date.now();
    const live = value.filter((endpoint) => now < endpoint.Expires);
    if (live.length === 0) {
      this.delete(key);
      return undefined;
    }
    return live;
  }

  set(key: string, endpoints: readonly Endpoint[]): void {
    const now = Date.now();
    this.put(
      key,
      endpoints.map(({ Address, CachePeriodInMinutes }) => ({ Address, Expires: now + CachePeriodInMinutes * 60 * 1000 })),
    );
  }

  delete(key: string): void {
    this.put(key, []);
  }

  /** Whether the key has endpoints (expired or not); does not count as a use. */
  has(key: string): boolean {
    return (this.cache.get(key)?.length ?? 0) > 0;
  }

  clear(): void {
    this.cache.clear();
  }

  private put(key: string, value: EndpointWithExpiry[]): void {
    this.cache.delete(key);
    this.cache.set(key, value);
    if (this.cache.size > this.capacity) this.cache.delete(this.cache.keys().next().value!);
  }
}

/*
 * `@smithy/core/checksum`, where the DynamoDB client takes only `Sha256` from it (SigV4 signing).
 * The package's `Sha256` is Node's crypto when it is there, else a pure-JavaScript SHA-256 that
 * Lambda's Node never needs (3 KB of every function); this is the native class alone. A bundle
 * that imports anything else from the package (and not listed here) fails to build.
 */
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

/*
 * `@aws-lambda-powertools/jmespath` (and its `/functions`). Powertools' idempotency utility
 * evaluates the two expressions the idempotency store configures (`shared/keys/idempotency-store.ts`):
 * a multiselect list of fields (`[namespace, scope, key]`) and one field (`payload`). The full
 * JMESPath interpreter is 20 KB of each function that takes an `Idempotency-Key`; this evaluates
 * exactly those two forms as JMESPath does (`test/unit/bundle-stand-ins.test.ts` compares it with
 * the real one), and refuses any other expression loudly.
 */

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A field of an object, as JMESPath reads it: null when absent or when `data` is no object. */
function field(data: unknown, name: string): unknown {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return null;
  return (data as Record<string, unknown>)[name] ?? null;
}

/** JMESPath `search` for a field (`payload`) or a multiselect list of fields (`[a, b, c]`). */
export function search(expression: string, data: unknown): unknown {
  const text = expression.trim();
  if (IDENTIFIER.test(text)) return field(data, text);
  const list = /^\[(.*)\]$/
    .exec(text)?.[1]
    ?.split(',')
    .map((part) => part.trim());
  if (list && list.every((name) => IDENTIFIER.test(name))) {
    return data === null || data === undefined ? null : list.map((name) => field(data, name));
  }
  throw new Error(`JMESPath expression not bundled: ${expression} (infra/bundle/stand-ins.ts)`);
}

/** The custom functions Powertools registers by default; the expressions above call none. */
export class PowertoolsFunctions {}
