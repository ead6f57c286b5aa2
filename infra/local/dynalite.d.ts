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
  const db: {
    /** The refusal of a write whose condition `item` (undefined: none) fails, else null or undefined. */
    checkConditional(data: Data, item: Data | undefined): DynaliteError | null | undefined;
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
