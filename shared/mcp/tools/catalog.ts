/**
 * Game and stream tools: list, get (mcp:<kind>s:read) and update (mcp:<kind>s:write), on the key's
 * own organization only; another organization's game or stream is "not found", like a missing one.
 * The key's allow-lists bound them as they bound create_session (docs/decisions.md#scopes): a list
 * shows only the allowed ones, and any other id is the "no access" tool error (403 out_of_scope,
 * counted and audited), refused before anything is written (an update may have read the item beside
 * authentication; nothing of it is answered).
 * One factory serves both kinds, so the tools' shapes are typed loosely here; the SDK validates every
 * answer against the tool's output schema. A kind's names derive from it: its plural (tool names,
 * scopes) is `<kind>s`, its id's field (arguments, answers) `<kind>_id`.
 */
import { scopeOfTool } from '../../keys/index.js';
import type { ApiKeyRecord } from '../../keys/index.js';
import type { Playable } from '../../catalog/index.js';
import { playableView } from '../../catalog/index.js';
import { isAllowed, outOfScope } from '../../sessions/index.js';
import { NoArgs, PlayableSchemas } from '../schemas.js';
import type { McpServices } from '../services.js';
import type { RequestMeter } from '../metering.js';
import { baseUrl, reading, type McpTool } from '../tool.js';

type Kind = Playable['kind'];

/** The list, get and update tools of games or of streams. */
export function catalogTools(kind: Kind): McpTool[] {
  return [listTool(kind), getTool(kind), updateTool(kind)];
}

/** list_games, list_streams: the organization's games or streams. */
const listTool = (kind: Kind): McpTool => ({
  name: `list_${kind}s`,
  title: `List ${kind}s`,
  description: `The ${kind}s of your organization that this API key may use (its allow-list), with their "Require API Session Token" setting and play page.`,
  scope: scopeOfTool(`list_${kind}s`),
  input: NoArgs,
  output: PlayableSchemas[kind].list,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(_args, { key, services, meter }) {
    const playables = await meter.run(
      {},
      reading(async () => (await services.orgCatalog.list(key.org_id, kind)).filter((playable) => isAllowed(key, playable))),
    );
    return {
      data: { [`${kind}s`]: playables.map((playable) => view(playable, services)) },
      summary: playables.length ? playables.map(describe).join('\n') : `Your organization has no ${kind}s.`,
    };
  },
});

/** get_game, get_stream: one of the organization's, by id. */
const getTool = (kind: Kind): McpTool => ({
  name: `get_${kind}`,
  title: `Get a ${kind}`,
  description: `One ${kind} of your organization, by ${kind}_id.`,
  scope: scopeOfTool(`get_${kind}`),
  input: PlayableSchemas[kind].get,
  output: PlayableSchemas[kind].view,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, { key, services, meter }) {
    const id = args[`${kind}_id`] as number;
    await refuseUnlessAllowed(key, meter, kind, id);
    const playable = await meter.run(
      { [`${kind}_id`]: id },
      reading(() => services.orgCatalog.get(key.org_id, kind, id)),
    );
    return { data: view(playable, services), summary: describe(playable) };
  },
});

/** update_game, update_stream: rename one, turn its session-token requirement on or off, or set how its pages start. */
const updateTool = (kind: Kind): McpTool => ({
  name: `update_${kind}`,
  title: `Update a ${kind}`,
  description:
    `Rename a ${kind} of your organization, or turn its "Require API Session Token" setting on or off ` +
    `(require_session_token), or set how its play pages start (start: "click", the player presses Play, so a mail scanner ` +
    `that runs the page's script consumes nothing; "auto", at once; null, by page shape: auto for /embed, click for the others). ` +
    `While require_session_token is off, the ${kind}'s play page plays without any session token.`,
  scope: scopeOfTool(`update_${kind}`),
  input: PlayableSchemas[kind].update,
  output: PlayableSchemas[kind].view,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  // The game or stream is read alongside authentication: its before values for the audit record,
  // which the update's own answer corrects should it have changed since (no stage more).
  prefetch: (args, services): Promise<Playable | undefined> =>
    services.orgCatalog.peek(kind, args[`${kind}_id`] as number).catch(() => undefined),
  async run(args, { key, services, meter, prefetched }) {
    const id = args[`${kind}_id`] as number;
    await refuseUnlessAllowed(key, meter, kind, id);
    const changes = {
      name: args.name as string | undefined,
      require_session_token: args.require_session_token as boolean | undefined,
      start: args.start as Playable['start'],
    };
    const effect = services.orgCatalog.update(key.org_id, kind, id, changes);
    const audit = services.orgCatalog.expectedAudit(key.org_id, (await prefetched) as Playable | undefined, changes);
    const { after } = await meter.run({ [`${kind}_id`]: id, ...audit }, effect);
    return { data: view(after, services), summary: `Updated. ${describe(after)}` };
  },
});

/** Count and audit the request as refused (403 out_of_scope) when the key's allow-lists leave the id out. */
async function refuseUnlessAllowed(key: ApiKeyRecord, meter: RequestMeter, kind: Kind, id: number): Promise<void> {
  const target = { kind, id };
  if (!isAllowed(key, target)) await meter.refuse({ [`${kind}_id`]: id }, outOfScope(target));
}

/** A game or stream as the tools answer it, with its play page (as REST list-games does). */
const view = (playable: Playable, services: McpServices) => playableView(playable, baseUrl(services));

/** How the start setting reads in the text summary (docs/play-pages.md#starting-the-game). */
const START_TEXT = { click: 'starts on a click on Play', auto: 'starts at once', shape: 'starts by page shape' } as const;

/** One line of the text summary a model reads. */
const describe = (playable: Playable) =>
  `${playable.kind === 'game' ? 'Game' : 'Stream'} ${playable.id} "${playable.name}": session token ${playable.require_session_token ? 'required' : 'not required'}, ${START_TEXT[playable.start ?? 'shape']}`;
