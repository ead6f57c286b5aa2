/**
 * Stands in for `@smithy/core/event-streams` in the Lambda bundles (an esbuild alias set in
 * `infra/functions.ts`). The SDK's protocol code imports it (dynamically) for operations whose
 * input or output is an event stream; DynamoDB has none, yet esbuild bundles the dynamic import:
 * 15 KB of every function. If an event-stream member ever reached it, this fails loudly.
 */
function unsupported(): never {
  throw new Error('event streams are not bundled: no DynamoDB operation uses one (infra/bundle/no-event-streams.ts)');
}

/** Where the SDK asks for an event-stream marshaller. */
export const eventStreamSerdeProvider = unsupported;

/** What the SDK would build to (de)serialize an event stream. */
export class EventStreamSerde {
  constructor() {
    unsupported();
  }
}
