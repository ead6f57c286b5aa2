/**
 * DynamoDB Streams for dynalite, which has none: the records DynamoDB would write, made from the
 * item writes dynalite applies. Every put, update and delete (a batch write's and the transactions
 * stand-in's items too: they go through the same actions) calls `db.updateIndexes(store, table,
 * old, new)` through the module's exports inside its lock on the item, once its condition passed
 * (as `dynalite-refusals.ts` hooks `db.checkConditional`): a refused write never gets there, so it
 * makes no record, and a write that changes nothing (the transactions stand-in's ConditionCheck)
 * makes none either, as in DynamoDB. Records of one item come in the order of its writes.
 *
 * Each dynalite server has a store of its own; a store is found by the Unix socket its server
 * listens on ({@link dynaliteStoreOf}), so two stacks in one process keep their streams apart.
 */
import db from 'dynalite/db/index.js';

/** An item write dynalite applied: the table, and the item as it was and as it is (absent: none). */
export interface AppliedWrite {
  readonly tableName: string;
  readonly oldItem?: Record<string, unknown>;
  readonly newItem?: Record<string, unknown>;
}

type Store = ReturnType<typeof db.create>;

const listeners = new Map<Store, (write: AppliedWrite) => void>();
const stores = new Map<string, Store>();
let made: Store | undefined;
let installed = false;

/** Hook dynalite's store creation and item writes (once; later calls do nothing). */
function install(): void {
  if (installed) return;
  installed = true;
  const create = db.create;
  db.create = (options) => (made = create(options));
  const updateIndexes = db.updateIndexes;
  db.updateIndexes = (store, table, oldItem, newItem, cb) =>
    updateIndexes(store, table, oldItem, newItem, (err) => {
      const listener = listeners.get(store);
      if (!err && listener && !sameItem(oldItem ?? undefined, newItem ?? undefined)) {
        listener({ tableName: table.TableName, oldItem: oldItem ?? undefined, newItem: newItem ?? undefined });
      }
      cb(err);
    });
}

/**
 * Make a dynalite server (`make` calls `dynalite()`) whose writes can be followed, known by the
 * socket it will listen on.
 */
export function followableDynalite<T>(socketPath: string, make: () => T): T {
  install();
  made = undefined;
  const server = make();
  if (made) stores.set(socketPath, made);
  return server;
}

/** Forget a closed server's store. */
export function forgetDynalite(socketPath: string): void {
  const store = stores.get(socketPath);
  if (store) listeners.delete(store);
  stores.delete(socketPath);
}

/**
 * Follow the writes of the dynalite listening on `socketPath` (one follower at a time).
 * @returns a function that stops following
 */
export function followDynaliteWrites(socketPath: string, onWrite: (write: AppliedWrite) => void): () => void {
  const store = stores.get(socketPath);
  if (!store) throw new Error(`no dynalite of this process listens on ${socketPath}`);
  listeners.set(store, onWrite);
  return () => {
    if (listeners.get(store) === onWrite) listeners.delete(store);
  };
}

/** Whether two items (wire format) are the same: a write that changes nothing. */
function sameItem(a: Record<string, unknown> | undefined, b: Record<string, unknown> | undefined): boolean {
  return a !== undefined && b !== undefined && canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
