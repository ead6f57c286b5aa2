/**
 * The composition root's foundation. Each Lambda function imports only the parts it uses (each
 * feature's `services.ts`), so its bundle carries only their code: the session functions
 * carry no JWT verifier, no admin domain and no idempotency library (figures in BENCHMARKS.md).
 * Every part is built once per container (module scope, so a warm Lambda reuses the client and its
 * keep-alive connections), and all parts share one core (environment, clock, DynamoDB client) and
 * the store adapters the features' `services.ts` declare.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { JwksCache } from 'aws-jwt-verify/jwk';
import { createBearerVerifier, type BearerServices } from './bearer.js';
import { systemClock, type Clock } from './time.js';
import { env, type Env } from './env.js';
import { createDocumentClient, type StoreOptions } from './dynamo/client.js';
import { DynamoBudgetStore } from './dynamo/budget-store.js';
import { DynamoSequenceStore } from './dynamo/sequence-store.js';
import { required } from './env.js';
import { tables, type TableName } from '../tables.js';
import type { SendQueue } from './worker.js';

/** What every part shares. */
export interface CoreServices {
  readonly env: Env;
  readonly clock: Clock;
  readonly client: DynamoDBDocumentClient;
}

/** What tests and the local runner may replace. */
export interface ServiceOverrides {
  readonly clock?: Clock;
  readonly client?: DynamoDBDocumentClient;
  /**
   * Where the bearer verifiers fetch the identity provider's JWKS (the local runner's identity
   * provider serves it over plain HTTP on localhost); aws-jwt-verify's own, over HTTPS, by default.
   */
  readonly jwksCache?: JwksCache;
  /**
   * This is the local run (`npm start`, the tests' stacks), not a deployment: what only a machine of
   * one's own may do is allowed (a webhook receiver on `http://localhost`: shared/webhooks/addresses.ts).
   */
  readonly local?: boolean;
  /**
   * The queues, in place of SQS: the local runner's in-process queues, which run the same worker
   * handlers (infra/local/). Absent: SQS at the queue's URL from the environment.
   */
  readonly queues?: Readonly<Partial<Record<SendQueue, QueueSender>>>;
  /**
   * Resolves host names (webhook URLs, at registration and at every attempt): tests make a name
   * resolve where they need (`vm` to 127.0.0.1) without touching the machine's. The system's by default.
   */
  readonly hostLookup?: HostLookup;
}

/** Resolves a host name to every address it has (as `dns.promises.lookup(host, { all: true })`). */
export type HostLookup = (hostname: string) => Promise<readonly { readonly address: string; readonly family: number }[]>;

/** The resolver the local runner or a test gave (`ServiceOverrides.hostLookup`); undefined: the system's. */
export function hostLookupOverride(): HostLookup | undefined {
  return overrides.hostLookup;
}

/** What a queue does for the code that sends to it (the feature's own port narrows the message). */
export interface QueueSender {
  send(messages: readonly never[]): Promise<void>;
}

/** The local runner's stand-in for a queue, when it gave one (`ServiceOverrides.queues`). */
export function queueOverride(queue: SendQueue): QueueSender | undefined {
  return overrides.queues?.[queue];
}

let overrides: ServiceOverrides = {};
/** Bumped by {@link overrideServices}: every part built before is rebuilt on its next use. */
let generation = 0;

/** Replace parts of the services (tests, local runner); every part is rebuilt on its next use. */
export function overrideServices(next: ServiceOverrides): void {
  overrides = next;
  generation += 1;
}

/**
 * Declare a part of the services: `build` runs on the part's first use (not at import, so the
 * local runner can set the environment first) and again only after {@link overrideServices}.
 * Declarations are marked pure where they are made, so a bundle drops the parts it never uses.
 */
export function part<T>(build: () => T): () => T {
  let built: { readonly generation: number; readonly value: T } | undefined;
  return () => {
    if (built?.generation !== generation) built = { generation, value: build() };
    return built.value;
  };
}

/** The core of this container's services. */
export const coreServices = /* @__PURE__ */ part((): CoreServices => {
  const parsed = env();
  return {
    env: parsed,
    clock: overrides.clock ?? systemClock,
    client: overrides.client ?? createDocumentClient({ endpoint: parsed.DYNAMODB_ENDPOINT }),
  };
});

/** Whether the local runner started these services (`ServiceOverrides.local`); false in every deployment. */
export function isLocalRun(): boolean {
  return overrides.local === true;
}

/** The client and physical name of a table (from the environment), for a store adapter's constructor. */
export function storeOptions(table: TableName): StoreOptions {
  const { client, env } = coreServices();
  return { client, tableName: required(env, tables[table].envVar) };
}

/** The organizations' budgets (usage reports, webhook hand sends), in the counters table. */
export const budgetStore = /* @__PURE__ */ part(() => new DynamoBudgetStore(storeOptions('counters')));
/** The id sequences (key, session and webhook ids), in the counters table. */
export const sequenceStore = /* @__PURE__ */ part(() => new DynamoSequenceStore(storeOptions('counters')));

/**
 * The core with the verifier of admins' bearer tokens, which every bearer route's part builds on:
 * one verifier per container (its JWKS fetched once), with the JWKS cache the local runner injects.
 * A bundle that never builds a bearer part carries no verifier (package.json `sideEffects`).
 */
export const bearerCore = /* @__PURE__ */ part((): CoreServices & BearerServices => {
  const core = coreServices();
  return { ...core, bearer: createBearerVerifier(core.env, { jwksCache: overrides.jwksCache }) };
});
