/**
 * Stands in for `node:http` in the Lambda bundles (an esbuild alias set in `infra/functions.ts`).
 * Importing `node:http` as an ES module makes Node build its module namespace, which reads every
 * export, including the lazy `WebSocket`, `CloseEvent` and `MessageEvent` getters, which load
 * Node's whole fetch implementation (undici): about 20 ms of every cold start, for a module the
 * functions only take `STATUS_CODES` from (through middy). `process.getBuiltinModule` returns the
 * same module without building a namespace. An import of a name not listed here fails the build.
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
