/**
 * Stands in for `@aws-sdk/endpoint-cache` in the Lambda bundles (an esbuild alias set in
 * `infra/functions.ts`). The DynamoDB client builds one for endpoint discovery, which it never uses
 * (discovery is off unless `AWS_ENABLE_ENDPOINT_DISCOVERY` is set, and no operation requires it);
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
