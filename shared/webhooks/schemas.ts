/**
 * Requests and responses of webhook endpoint management (org owners and admins, bearer). The URL's
 * shape is bounded here; whether it may be used (scheme, address class) is `addresses.ts`'s
 * `checkUrl`, in the domain (`webhook-admin.ts`), which answers a refusal as a 400 on `url`.
 */
import * as z from 'zod/mini';
import { Id, QueryId, Timestamp, withMeta } from '../platform/schemas.js';
import { SubscribedEvents } from './events.js';

const WEBHOOK_BOUNDS = { url: 2048, description: 500 } as const;

const Url = withMeta(z.string().check(z.minLength(1), z.maxLength(WEBHOOK_BOUNDS.url)), {
  description:
    'Where events are sent: an https:// URL whose host resolves only to public addresses (locally also http://localhost and http://127.0.0.1). At most 2,048 characters.',
  example: 'https://partner.example/hooks/gsts',
});
const Description = withMeta(z.string().check(z.maxLength(WEBHOOK_BOUNDS.description)), { description: 'At most 500 characters.' });
const Secret = withMeta(z.string(), {
  description:
    'The signing secret (Standard Webhooks): `whsec_` and the base64 of 32 random bytes. Shown only in this answer: store it now.',
  example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
});

export const ListWebhooksQuery = z.object({ org_id: QueryId });

export const CreateWebhookBody = withMeta(
  z.strictObject({
    org_id: Id,
    url: Url,
    events: SubscribedEvents,
    description: z.optional(z.nullable(Description)),
  }),
  { description: 'The new endpoint: org, URL and event types required.' },
);
export type CreateWebhookBody = z.output<typeof CreateWebhookBody>;

export const UpdateWebhookBody = withMeta(
  z.strictObject({
    id: Id,
    org_id: Id,
    url: z.optional(Url),
    events: z.optional(SubscribedEvents),
    description: z.optional(z.nullable(Description)),
    is_active: z.optional(withMeta(z.boolean(), { description: 'false pauses deliveries to the endpoint; true resumes them.' })),
  }),
  { description: 'The endpoint and what to change; a field left out stays as it is (description: null clears it).' },
);
export type UpdateWebhookBody = z.output<typeof UpdateWebhookBody>;

export const DeleteWebhookQuery = z.object({ id: QueryId, org_id: QueryId });

export const RotateWebhookSecretBody = z.strictObject({ id: Id, org_id: Id });
export type RotateWebhookSecretBody = z.output<typeof RotateWebhookSecretBody>;

/** An endpoint as admins see it (list, update): never a secret. */
export const WebhookView = withMeta(
  z.object({
    id: Id,
    org_id: Id,
    url: z.string(),
    events: z.array(z.string()),
    description: z.nullable(z.string()),
    is_active: z.boolean(),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  { id: 'WebhookView' },
);
export type WebhookView = z.output<typeof WebhookView>;

/** The create-webhook answer: the endpoint and its signing secret (only here and in a rotation's answer). */
export const CreatedWebhook = withMeta(z.extend(WebhookView, { secret: Secret }), { id: 'CreatedWebhook' });
export type CreatedWebhook = z.output<typeof CreatedWebhook>;

export const DeletedWebhook = withMeta(z.object({ id: Id, deleted: z.literal(true) }), { id: 'DeletedWebhook' });

/** The rotate-webhook-secret answer: the new secret; the previous one signs beside it for 24 hours. */
export const RotatedWebhookSecret = withMeta(
  z.object({
    id: Id,
    secret: Secret,
    previous_secret_expires_at: withMeta(Timestamp, {
      description: 'Until then every delivery carries a signature with the previous secret too.',
    }),
  }),
  { id: 'RotatedWebhookSecret' },
);
export type RotatedWebhookSecret = z.output<typeof RotatedWebhookSecret>;
