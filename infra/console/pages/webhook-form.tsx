/**
 * Register a webhook endpoint, or change its URL, events, description and filter (the games and
 * streams whose session events it receives, as id lists). An edit sends only what changed; pausing
 * and resuming are actions of their own.
 */
import { useState } from 'preact/hooks';
import { data, type CreatedWebhook, type Webhook } from '../api';
import { useApi } from '../parts/api-context';
import { Dialog, DialogButtons } from '../parts/dialog';
import { failure } from '../parts/load';
import { Notice } from '../parts/page';
import { ALL_EVENTS, EVENT_TYPES, type SubscribedEvent } from '../parts/webhook-events';

/** Props of {@link WebhookForm}. */
export interface WebhookFormProps {
  readonly orgId: number;
  /** The endpoint to edit; absent: register one. */
  readonly existing?: Webhook;
  readonly onClose: () => void;
  readonly onSaved: (saved: Webhook | CreatedWebhook) => void;
}

interface Fields {
  url: string;
  description: string;
  /** `["*"]`, or the chosen types. */
  events: SubscribedEvent[];
  /** Per kind: null, every one; a string, the ids typed (none typed: none of that kind). */
  games: string | null;
  streams: string | null;
}

/** Ids as typed: whole numbers from 1, separated by commas or spaces. @throws Error naming the field */
function idsOf(typed: string | null, label: string): number[] | null {
  if (typed === null) return null;
  const words = typed.split(/[\s,]+/).filter((w) => w !== '');
  if (words.some((w) => !/^[1-9][0-9]{0,15}$/.test(w))) throw new Error(`${label}: whole numbers from 1, separated by commas.`);
  return words.map(Number);
}

/** The request's properties from the fields. @throws Error on ids that are not ids */
function properties(fields: Fields) {
  const game_ids = idsOf(fields.games, 'Game ids');
  const stream_ids = idsOf(fields.streams, 'Stream ids');
  return {
    url: fields.url.trim(),
    events: fields.events,
    description: fields.description.trim() === '' ? null : fields.description.trim(),
    filter: game_ids === null && stream_ids === null ? null : { game_ids, stream_ids },
  };
}

/** The create / edit dialog. */
export function WebhookForm({ orgId, existing, onClose, onSaved }: WebhookFormProps) {
  const api = useApi();
  const [fields, setFields] = useState<Fields>({
    url: existing?.url ?? '',
    description: existing?.description ?? '',
    // The list answers `events` as plain strings; they are what the service accepted as subscriptions.
    events: [...((existing?.events as SubscribedEvent[] | undefined) ?? [ALL_EVENTS])],
    games: existing?.filter?.game_ids?.join(', ') ?? null,
    streams: existing?.filter?.stream_ids?.join(', ') ?? null,
  });
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    // The service refuses an empty list; saying so here keeps the admin in the form.
    if (fields.events.length === 0) return setProblem('Choose at least one event type, or all events.');
    setBusy(true);
    try {
      const next = properties(fields);
      if (existing) {
        const body = Object.fromEntries(
          Object.entries(next).filter(([name, value]) => JSON.stringify(value) !== JSON.stringify(existing[name as keyof Webhook])),
        );
        if (Object.keys(body).length === 0) return onClose();
        onSaved(await data(api.PATCH('/api/org-api-keys/update-webhook', { body: { id: existing.id, org_id: orgId, ...body } })));
      } else {
        onSaved(await data(api.POST('/api/org-api-keys/create-webhook', { body: { org_id: orgId, ...next } })));
      }
    } catch (error) {
      setProblem(failure(error).message);
    } finally {
      setBusy(false);
    }
  };
  const urlHint = 'https:// and a public address (locally http://localhost too)';
  return (
    <Dialog title={existing ? 'Edit the endpoint' : 'Add an endpoint'} onClose={onClose}>
      <form class="stack" onSubmit={submit}>
        <div class="field">
          <label for="webhook-url">URL</label>
          <input
            id="webhook-url"
            type="url"
            required
            maxLength={2048}
            aria-describedby="webhook-url-hint"
            value={fields.url}
            onInput={(e) => setFields({ ...fields, url: e.currentTarget.value })}
          />
          <span id="webhook-url-hint" class="hint">
            {urlHint}
          </span>
        </div>
        <div class="field">
          <label for="webhook-description">Description (optional)</label>
          <input
            id="webhook-description"
            maxLength={500}
            value={fields.description}
            onInput={(e) => setFields({ ...fields, description: e.currentTarget.value })}
          />
        </div>
        <Events events={fields.events} onChange={(events) => setFields({ ...fields, events })} />
        <fieldset class="scopes">
          <legend>Session events of</legend>
          <Ids kind="game" typed={fields.games} onChange={(games) => setFields({ ...fields, games })} />
          <Ids kind="stream" typed={fields.streams} onChange={(streams) => setFields({ ...fields, streams })} />
        </fieldset>
        {problem && <Notice kind="error">{problem}</Notice>}
        <DialogButtons label={existing ? 'Save' : 'Add the endpoint'} onCancel={onClose} disabled={busy} />
      </form>
    </Dialog>
  );
}

/**
 * "All events" (`["*"]`, types added later included) or "Chosen types", a choice of one (radio
 * buttons); the types' checkboxes show under "Chosen types" only, so nothing reads as chosen that
 * is not. Switching to chosen types starts with none ticked; the types ticked are kept while
 * "All events" is picked, and come back with "Chosen types".
 */
function Events({ events, onChange }: { events: readonly SubscribedEvent[]; onChange: (events: SubscribedEvent[]) => void }) {
  const all = events.includes(ALL_EVENTS);
  const [chosen, setChosen] = useState<SubscribedEvent[]>(all ? [] : [...events]);
  const choose = (next: SubscribedEvent[]) => {
    setChosen(next);
    onChange(next);
  };
  const toggle = (type: SubscribedEvent, on: boolean) => choose(on ? [...chosen, type] : chosen.filter((e) => e !== type));
  return (
    <fieldset class="events">
      <legend>Events</legend>
      <label class="check">
        <input type="radio" name="events-mode" aria-describedby="events-all-hint" checked={all} onChange={() => onChange([ALL_EVENTS])} />
        All events
      </label>
      <span id="events-all-hint" class="hint indent">
        every type, those added later included
      </span>
      <label class="check">
        <input type="radio" name="events-mode" checked={!all} onChange={() => onChange(chosen)} />
        Chosen types
      </label>
      {!all && (
        <fieldset class="scopes">
          <legend class="visually-hidden">Event types</legend>
          {EVENT_TYPES.map(([type, hint]) => (
            <div key={type} class="scope">
              <label class="check">
                <input
                  type="checkbox"
                  aria-describedby={`event-${type}`}
                  checked={chosen.includes(type)}
                  onChange={(e) => toggle(type, e.currentTarget.checked)}
                />
                {type}
              </label>
              <span id={`event-${type}`} class="hint">
                {hint}
              </span>
            </div>
          ))}
        </fieldset>
      )}
    </fieldset>
  );
}

/** One kind of a filter: every one of the org, or only the ids typed (none typed: none). */
function Ids({ kind, typed, onChange }: { kind: 'game' | 'stream'; typed: string | null; onChange: (typed: string | null) => void }) {
  const only = typed !== null;
  return (
    <div class="field">
      <label class="check">
        <input type="checkbox" checked={only} onChange={(e) => onChange(e.currentTarget.checked ? '' : null)} />
        Only some {kind}s
      </label>
      <label for={`webhook-${kind}s`}>{kind === 'game' ? 'Game' : 'Stream'} ids</label>
      <input
        id={`webhook-${kind}s`}
        inputMode="numeric"
        disabled={!only}
        aria-describedby={`webhook-${kind}s-hint`}
        value={typed ?? ''}
        onInput={(e) => onChange(e.currentTarget.value)}
      />
      <span id={`webhook-${kind}s-hint`} class="hint">
        {only ? `separated by commas; none: no ${kind} sessions` : `every ${kind} of the organization`}
      </span>
    </div>
  );
}
