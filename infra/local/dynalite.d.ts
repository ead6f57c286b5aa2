declare module 'dynalite' {
  import type { Server } from 'node:http';
  interface DynaliteOptions {
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    maxItemSizeKb?: number;
  }
  export default function dynalite(options?: DynaliteOptions): Server;
}

/** dynalite's item store helpers (what `dynalite-refusals.ts` wraps). */
declare module 'dynalite/db/index.js' {
  /** A request's parameters as dynalite's validation left them, and an item, both in the wire format. */
  type Data = Record<string, unknown>;
  /** A refusal as dynalite answers it: the status and the body it sends. */
  interface DynaliteError extends Error {
    statusCode: number;
    body: Record<string, unknown>;
  }
  /** One dynalite's data (each server has its own). */
  type Store = object;
  /** A table's description as dynalite keeps it. */
  interface Table {
    TableName: string;
  }
  const db: {
    /** The refusal of a write whose condition `item` (undefined: none) fails, else null or undefined. */
    checkConditional(data: Data, item: Data | undefined): DynaliteError | null | undefined;
    /** Make a server's store (called once by `dynalite()`). */
    create(options: Record<string, unknown>): Store;
    /**
     * Every item write (put, update, delete; batch writes through them) calls this inside its lock on
     * the item, with the item as it was and as it will be (null: deleted), just before the write.
     */
    updateIndexes(
      store: Store,
      table: Table,
      oldItem: Data | null | undefined,
      newItem: Data | null,
      cb: (err?: Error | null) => void,
    ): void;
  };
  export default db;
}

/** The parameters dynalite keeps of a request of one action, and how it checks them. */
declare module 'dynalite/validations/putItem.js' {
  const validation: { types: Record<string, unknown> };
  export default validation;
}
declare module 'dynalite/validations/updateItem.js' {
  const validation: { types: Record<string, unknown> };
  export default validation;
}
declare module 'dynalite/validations/deleteItem.js' {
  const validation: { types: Record<string, unknown> };
  export default validation;
}
