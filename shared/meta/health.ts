/**
 * The service's health: liveness (the code runs: the interface and build versions, no database
 * call) and, asked for, readiness of its database (one bounded read, and how long it took). What a
 * load balancer, an uptime check or a deploy's smoke test calls (`GET /api/health`).
 */
import type { Clock } from '../platform/time.js';
import { Overloaded } from '../platform/errors.js';

/** The one read a deep check makes (a port: the DynamoDB adapter is `shared/meta/health-probe.ts`). */
export interface HealthProbe {
  /**
   * Read one known item, giving up after `timeoutMs`.
   * @throws anything when the read fails or times out
   */
  read(timeoutMs: number): Promise<void>;
}

/** The answer of a health check. */
export interface HealthReport {
  readonly status: 'ok';
  /** The version of the public interface (spec: Versioning; the OpenAPI `info.version`). */
  readonly interface_version: string;
  /** What was deployed (a commit, a release tag; `dev` locally). */
  readonly build_version: string;
  /** The database read of a deep check: its latency in milliseconds. */
  readonly database?: { readonly status: 'ok'; readonly latency_ms: number };
}

/** Longest a deep check waits for its read: well within a load balancer's usual 5 s timeout. */
const HEALTH_READ_TIMEOUT_MS = 2000;

/** Liveness, and on request the database's readiness. */
export class Health {
  constructor(
    private readonly deps: {
      readonly probe: HealthProbe;
      readonly clock: Clock;
      readonly interfaceVersion: string;
      readonly buildVersion: string;
    },
  ) {}

  /**
   * The report: versions; with `deep`, one read of the database timed.
   * @throws Overloaded (503) when the deep read fails or times out (its cause logged, never sent)
   */
  async check(deep: boolean): Promise<HealthReport> {
    const report = { status: 'ok', interface_version: this.deps.interfaceVersion, build_version: this.deps.buildVersion } as const;
    if (!deep) return report;
    const started = this.deps.clock.now();
    try {
      await this.deps.probe.read(HEALTH_READ_TIMEOUT_MS);
    } catch (error) {
      throw new Overloaded({ cause: error });
    }
    return { ...report, database: { status: 'ok', latency_ms: this.deps.clock.now() - started } };
  }
}
