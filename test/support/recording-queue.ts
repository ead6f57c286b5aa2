/**
 * A delivery queue that records what is sent to it, put in place of the stack's through the
 * services' queue override (`overrideServices({ queues })`, shared/platform/services.ts): the port
 * the local runner's own queue fills too. Tests of the operations that enqueue (retry, test) read
 * what was enqueued from it; nothing is delivered meanwhile.
 */
import type { DeliveryMessage } from '../../shared/webhooks/delivery-model.js';
import { overrideServices } from '../../infra/local/all-services.js';
import type { Stack } from './local-stack.js';

/** The messages sent, in order. */
export class RecordingQueue {
  readonly messages: DeliveryMessage[] = [];

  async send(messages: readonly DeliveryMessage[]): Promise<void> {
    this.messages.push(...messages);
  }
}

/** Put a recording queue in place of the stack's delivery queue; `restore` puts the stack's back. */
export function recordDeliveries(stack: Pick<Stack, 'overrides'>): { readonly queue: RecordingQueue; restore(): void } {
  const queue = new RecordingQueue();
  const { overrides } = stack;
  overrideServices({ ...overrides, queues: { ...overrides.queues, 'webhook-deliveries': queue } });
  return { queue, restore: () => overrideServices(overrides) };
}
