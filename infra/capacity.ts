/**
 * THE capacity plan: how much traffic the edge admits per route, by the route's `capacity` class in
 * THE routes table (shared/routes.ts), and how much Lambda concurrency create-session keeps for itself.
 * The defaults are sized from the contract and explained in docs/deploy.md ("Capacity"); the
 * deployment overrides any of them with the `capacity` context.
 */
import type { CapacityClass, RouteDefinition } from '../shared/platform/route.js';
import { originPath } from '../shared/platform/route.js';
import { answersHead } from '../shared/routes.js';

/** A token bucket of API Gateway: steady requests per second and the bucket's size. */
export interface Throttle {
  readonly rate: number;
  readonly burst: number;
}

export interface CapacityPlan {
  /** The throttle of EACH route of a class (each route is a bucket of its own in API Gateway). */
  readonly routes: Readonly<Record<CapacityClass, Throttle>>;
  /**
   * The account's HTTP API throttle quota in the region (requests per second, Service Quotas
   * L-8A5B8E43; AWS's default 10,000). Isolation between classes holds only while the routes'
   * rates add up to no more than it; the synth warns otherwise.
   */
  readonly accountRateLimit: number;
  /** Concurrency reserved for (and capping) create-session's function; `none` reserves nothing. */
  readonly createSessionConcurrency: number | 'none';
}

/**
 * One key may call 100,000 times a minute (the decided maximum, docs/decisions.md#api-keys): 1,667/s. Every
 * class that follows a minted token (its validation and consumption, its page view and
 * `/play/session`, which consumes it) gets the same rate, so a browser lifecycle keeps up with minting at that pace;
 * 20 % above 1,667 leaves room for a second busy key and for uneven seconds.
 */
const LIFECYCLE_RATE = 2000;

/** The defaults (docs/deploy.md, "Capacity", explains each figure). */
export const DEFAULT_CAPACITY: CapacityPlan = {
  routes: {
    key: { rate: LIFECYCLE_RATE, burst: LIFECYCLE_RATE },
    token: { rate: LIFECYCLE_RATE, burst: LIFECYCLE_RATE },
    play: { rate: LIFECYCLE_RATE, burst: LIFECYCLE_RATE },
    // People and their scripts managing keys: a console's clicks, a rotation job.
    admin: { rate: 20, burst: 40 },
    // The OpenAPI document: fetched by tooling now and then.
    meta: { rate: 20, burst: 40 },
  },
  accountRateLimit: 10_000,
  // Little's law: 2,000 create-session calls/s × 100 ms (three times a warm call's two DynamoDB
  // stages, room for cold starts) = 200 executions at once.
  createSessionConcurrency: 200,
};

/** The operation whose function gets the reserved concurrency. */
export const RESERVED_OPERATION = 'create-session';

/** API Gateway's route key of a route: method and origin path. */
export function routeKey(route: RouteDefinition): string {
  return `${route.method} ${originPath(route)}`;
}

/** The route key of a page's HEAD route (`answersHead()`), or undefined for a route without one. */
export function headRouteKey(route: RouteDefinition): string | undefined {
  return answersHead(route) ? `HEAD ${originPath(route)}` : undefined;
}

/**
 * The throttle of every route of the table, by route key. A page's HEAD route has the smallest
 * budget (the meta class): a HEAD is a link checker's, not a player's.
 */
export function routeThrottles(table: readonly RouteDefinition[], plan: CapacityPlan): Map<string, Throttle> {
  return new Map(
    table.flatMap((route): [string, Throttle][] => {
      const head = headRouteKey(route);
      return [[routeKey(route), plan.routes[route.capacity]], ...(head ? [[head, plan.routes.meta] as [string, Throttle]] : [])];
    }),
  );
}

/** The requests per second the plan admits, per class and in total (what the account quota must cover). */
export function planTotals(table: readonly RouteDefinition[], plan: CapacityPlan): { total: number; byClass: Record<string, number> } {
  const byClass: Record<string, number> = {};
  for (const route of table) byClass[route.capacity] = (byClass[route.capacity] ?? 0) + plan.routes[route.capacity].rate;
  return { total: Object.values(byClass).reduce((a, b) => a + b, 0), byClass };
}

/** Why the plan can't be deployed as given (empty when it can). */
export function planErrors(plan: CapacityPlan): string[] {
  const errors: string[] = [];
  for (const [name, throttle] of Object.entries(plan.routes)) {
    // API Gateway refuses route throttles above the account's rate.
    if (throttle.rate > plan.accountRateLimit) {
      errors.push(`capacity.${name}.rate ${throttle.rate} is above accountRateLimit ${plan.accountRateLimit}`);
    }
  }
  return errors;
}
