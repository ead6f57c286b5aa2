/** The delivery worker's part of the services (`webhookDelivery` in shared/platform/env-parts.ts): its attempts, built from the feature's adapters. */
import { auditStore } from '../audit/index.js';
import { logger, METRIC, writeWorkerMetrics } from '../platform/observability.js';
import { coreServices, isLocalRun, part, storeOptions, type CoreServices } from '../platform/services.js';
import { DeliveryAttempts, type AttemptMetric } from './deliver.js';
import { DynamoEndpointGate } from './endpoint-gate-store.js';
import { HttpSender } from './sender.js';
import { deliveryQueue, deliveryStore, hostLookup, secretSealer, webhookStore } from './services.js';

/** What the delivery worker needs. */
export interface WebhookDeliveryServices extends CoreServices {
  readonly deliveryAttempts: DeliveryAttempts;
}

/** The endpoints' places (leases in the webhooks table). */
const endpointGate = /* @__PURE__ */ part(() => new DynamoEndpointGate(storeOptions('webhooks')));

/** The attempts one invocation made, written as its metrics line when it ends ({@link publishAttemptMetrics}). */
const attempts: AttemptMetric[] = [];

/** Write the metrics of the attempts made since the last call (the worker calls it once per batch). */
export function publishAttemptMetrics(): void {
  const made = attempts.splice(0);
  if (made.length === 0) return;
  const delivered = made.filter((a) => a.result === 'success').length;
  writeWorkerMetrics(
    { [METRIC.webhookDelivered]: delivered, [METRIC.webhookFailed]: made.length - delivered },
    { [METRIC.webhookLatency]: made.map((a) => a.elapsedMs) },
  );
}

/** The delivery worker's part of this container's services. */
export const webhookDeliveryServices = /* @__PURE__ */ part((): WebhookDeliveryServices => {
  const core = coreServices();
  const deliveryAttempts = new DeliveryAttempts({
    deliveries: deliveryStore(),
    webhooks: webhookStore(),
    gate: endpointGate(),
    sealer: secretSealer(),
    queue: deliveryQueue(),
    sender: new HttpSender({ deployment: isLocalRun() ? 'local' : 'deployed', lookup: hostLookup() }),
    clock: core.clock,
    audit: auditStore(),
    auditRetentionDays: core.env.AUDIT_RETENTION_DAYS,
    onAttempt: (attempt) => {
      attempts.push(attempt);
      // A failed attempt is a line on-call can find by endpoint or delivery (docs/runbook.md); a success is only counted.
      if (attempt.result !== 'success') {
        const { orgId, webhookId, deliveryId, statusCode, error, elapsedMs } = attempt;
        logger.warn('webhook attempt failed', {
          org_id: orgId,
          webhook_id: webhookId,
          delivery_id: deliveryId,
          attempt: attempt.attempt,
          result: attempt.result,
          status_code: statusCode,
          error,
          duration_ms: elapsedMs,
        });
      }
    },
  });
  return { ...core, deliveryAttempts };
});
