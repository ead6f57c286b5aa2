import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type * as z from 'zod/v4/core';
import type { McpScope } from '../keys/index.js';
import type { ApiKeyRecord } from '../keys/index.js';
import type { CallContext } from '../platform/call.js';
import type { McpServices } from './services.js';
import type { RequestMeter } from './metering.js';

/** What a tool works with during one request. */
export interface ToolContext<Prefetched = unknown> {
  readonly key: ApiKeyRecord;
  readonly call: CallContext;
  readonly services: McpServices;
  /** Counts and audits the request; a tool meters it exactly once, with its main write or read. */
  readonly meter: RequestMeter;
  /** What the tool's `prefetch` read alongside authentication (undefined when it has none). */
  readonly prefetched: Promise<Prefetched>;
}

/** A tool's answer: the structured result, and a short text for clients that show only text. */
export interface ToolAnswer<T> {
  readonly data: T;
  readonly summary: string;
}

/**
 * One tool of the MCP server. Its scope decides who sees and may call it (deny-by-default); its zod
 * schemas are the tool's published input and output schemas and validate both.
 */
export interface McpTool<I extends z.$ZodObject = z.$ZodObject, O extends z.$ZodObject = z.$ZodObject, Prefetched = unknown> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly scope: McpScope;
  readonly input: I;
  readonly output: O;
  readonly annotations: ToolAnnotations;
  /**
   * Reads that need only the arguments, started alongside authentication so that the tool's metered
   * stage follows it directly (create_session: the game or stream, as REST reads it).
   */
  prefetch?(args: z.output<I>, services: McpServices): Promise<Prefetched>;
  /** Do the work; meter the request exactly once (`context.meter`). Domain errors become tool errors. */
  run(args: z.output<I>, context: ToolContext<Prefetched>): Promise<ToolAnswer<z.output<O>>>;
}

/** Declare a tool (infers its schemas' types). */
export function defineTool<I extends z.$ZodObject, O extends z.$ZodObject, Prefetched = undefined>(
  tool: McpTool<I, O, Prefetched>,
): McpTool<I, O, Prefetched> {
  return tool;
}

/** A read as a metered call's effect: nothing to undo. */
export function reading<T>(read: () => Promise<T>): { run: () => Promise<T>; undo: () => Promise<void> } {
  return { run: read, undo: async () => undefined };
}

/** The public base URL without a trailing slash, for play links. */
export function baseUrl(services: McpServices): string {
  return services.env.PUBLIC_BASE_URL.replace(/\/+$/, '');
}
