/**
 * The stand-ins for the packages the SDK imports dynamically (`await import(...)`), aliased in by
 * esbuild (`infra/functions.ts`): esbuild keeps every statement of a dynamically imported module,
 * so these two stay apart from `stand-ins.ts`, whose unused parts a bundle drops.
 */

/*
 * `node:http`. Importing `node:http` as an ES module makes Node build its module namespace, which
 * reads every export, including the lazy `WebSocket`, `CloseEvent` and `MessageEvent` getters,
 * which load Node's whole fetch implementation (undici): about 20 ms of every cold start, for a
 * module the functions only take `STATUS_CODES` from (through middy). `process.getBuiltinModule`
 * returns the same module without building a namespace. An import of a name not listed here fails the build.
 */
const http = process.getBuiltinModule('node:http');

export default http;
export const {
  Agent,
  ClientRequest,
  IncomingMessage,
  METHODS,
  OutgoingMessage,
  STATUS_CODES,
  Server,
  ServerResponse,
  createServer,
  get,
  globalAgent,
  maxHeaderSize,
  request,
  validateHeaderName,
  validateHeaderValue,
} = http;

/*
 * `@smithy/core/event-streams`. The SDK's protocol code imports it (dynamically) for operations
 * whose input or output is an event stream; DynamoDB has none, yet esbuild bundles the dynamic import:
 * 15 KB of every function. If an event-stream member ever reached it, this fails loudly.
 */
function unsupported(): never {
  throw new Error('event streams are not bundled: no DynamoDB operation uses one (infra/bundle/lazy-stand-ins.ts)');
}

/** Where the SDK asks for an event-stream marshaller. */
export const eventStreamSerdeProvider = unsupported;

/** What the SDK would build to (de)serialize an event stream. */
export class EventStreamSerde {
  constructor() {
    unsupported();
  }
}
