/**
 * THE workers table: every function that no client calls (shared/platform/worker.ts), each declared
 * once beside its handler. The CDK stack and the local runner both read this list.
 */
import type { WorkerDefinition } from './platform/worker.js';
import { webhookDeliveryWorker, webhookDueWorker, webhookEventsWorker } from './webhooks/index.js';

/** Every worker of the service. */
export const workers: readonly WorkerDefinition[] = [webhookEventsWorker, webhookDueWorker, webhookDeliveryWorker];
