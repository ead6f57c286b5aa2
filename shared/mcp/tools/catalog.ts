/**
 * Game and stream tools: list, get (mcp:<kind>s:read) and update (mcp:<kind>s:write), on the key's
 * own organization only; another organization's game or stream is "not found", like a missing one.
 * One factory serves both kinds, so the tools' shapes are typed loosely here; the SDK validates every
 * answer against the tool's output schema.
 */
import type { McpScope } from '../../domain/mcp-scopes.js';
import type { Playable } from '../../domain/model.js';
import { NoArgs, PlayableSchemas } from '../../schemas/mcp.js';
import type { McpServices } from '../../compose/mcp.js';
import { baseUrl, reading, type McpTool } from '../tool.js';

/** The list, get and update tools of games or of streams. */
export function catalogTools(kind: Playable['kind']): McpTool[] {
  const idField = kind === 'game' ? 'game_id' : 'stream_id';
  const plural = kind === 'game' ? 'games' : 'streams';
  const schemas = PlayableSchemas[kind];
  const view = (p: Playable, services: McpServices) => ({
    [idField]: p.id,
    name: p.name,
    require_session_token: p.require_session_token,
    play_url: `${baseUrl(services)}/play/${kind}/${p.id}`,
  });
  const describe = (p: Playable) =>
    `${kind === 'game' ? 'Game' : 'Stream'} ${p.id} "${p.name}": session token ${p.require_session_token ? 'required' : 'not required'}`;
  const idOf = (args: Record<string, unknown>) => args[idField] as number;
  const subject = (id: number) => ({ [idField]: id });

  const list: McpTool = {
    name: `list_${plural}`,
    title: `List ${plural}`,
    description: `The ${plural} of your organization, with their "Require API Session Token" setting and play page.`,
    scope: `mcp:${plural}:read` as McpScope,
    input: NoArgs,
    output: schemas.list,
    annotations: { readOnlyHint: true, openWorldHint: false },
    async run(_args, { key, services, meter }) {
      const playables = await meter.run(
        {},
        reading(() => services.orgCatalog.list(key.org_id, kind)),
      );
      return {
        data: { [plural]: playables.map((p) => view(p, services)) },
        summary: playables.length ? playables.map(describe).join('\n') : `Your organization has no ${plural}.`,
      };
    },
  };

  const get: McpTool = {
    name: `get_${kind}`,
    title: `Get a ${kind}`,
    description: `One ${kind} of your organization, by ${idField}.`,
    scope: `mcp:${plural}:read` as McpScope,
    input: schemas.get,
    output: schemas.view,
    annotations: { readOnlyHint: true, openWorldHint: false },
    async run(args, { key, services, meter }) {
      const id = idOf(args);
      const playable = await meter.run(
        subject(id),
        reading(() => services.orgCatalog.get(key.org_id, kind, id)),
      );
      return { data: view(playable, services), summary: describe(playable) };
    },
  };

  const update: McpTool = {
    name: `update_${kind}`,
    title: `Update a ${kind}`,
    description:
      `Rename a ${kind} of your organization, or turn its "Require API Session Token" setting on or off ` +
      `(require_session_token). While it is off, the ${kind}'s play page plays without any session token.`,
    scope: `mcp:${plural}:write` as McpScope,
    input: schemas.update,
    output: schemas.view,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async run(args, { key, services, meter }) {
      const id = idOf(args);
      const changes = { name: args.name as string | undefined, require_session_token: args.require_session_token as boolean | undefined };
      const { after } = await meter.run(subject(id), services.orgCatalog.update(key.org_id, kind, id, changes));
      return { data: view(after, services), summary: `Updated. ${describe(after)}` };
    },
  };

  return [list, get, update];
}
