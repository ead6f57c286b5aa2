/** The webhooks feature's parts: its adapters (the endpoints, in the catalog table; their secrets' sealer). */
import { env } from '../platform/env.js';
import { secret } from '../platform/secrets.js';
import { part, storeOptions } from '../platform/services.js';
import { AesGcmSealer } from './secret-sealer.js';
import { DynamoWebhookStore } from './webhook-store.js';

export const webhookStore = /* @__PURE__ */ part(() => new DynamoWebhookStore(storeOptions('catalog')));

/** Endpoint secrets sealed under `WEBHOOK_SECRET_KEY`, read on first use (in AWS: loaded at the container's first request). */
export const secretSealer = /* @__PURE__ */ part(() => new AesGcmSealer(() => secret(env(), 'WEBHOOK_SECRET_KEY')));
