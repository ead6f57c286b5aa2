/**
 * The cost of a usage report of the longest range, 31 days: the DynamoDB calls
 * and round-trip stages of REST `usage` and MCP `get_session_report` over a month that holds
 * sessions, recorded like the stage pass (test/support/round-trips.ts). Before the report index and
 * the usage rollup a month cost 248 audit queries (31 days × 8 shards) and a batch read per 100
 * tokens; now a bounded number whatever the range holds (docs/architecture.md, "Usage").
 */
import { API_PATH } from '../../shared/platform/route.js';
import { routes } from '../../shared/routes.js';
import { describeStages, RoundTripRecorder, stageCount } from '../support/round-trips.js';
import { createBenchKey, type BenchStack } from './harness.js';
import type { BenchRequest } from './http.js';
import { mintTokens } from './operations.js';
import { median } from './stats.js';
import { table } from './table.js';

const DAY = 86_400_000;
/** Sessions minted before the measurement: the month is not empty. */
const SESSIONS = 200;

/** One way of asking for the report: its median calls and stages, and the calls of a median sample. */
export interface UsageReportCost {
  readonly calls: number;
  readonly stages: number;
  readonly picture: string;
}

/** What the pass found: REST `usage` and MCP `get_session_report` (absent without an MCP function). */
export interface UsageReportFigures {
  readonly days: number;
  readonly rest: UsageReportCost;
  readonly mcp?: UsageReportCost;
}

/** Mint sessions, then measure `samples` reports of 31 days each way (after `warmup` unmeasured). */
export async function measureUsageReport(stack: BenchStack, options: { warmup: number; samples: number }): Promise<UsageReportFigures> {
  await mintTokens(stack, SESSIONS);
  const now = stack.service.services.clock.now();
  const to = new Date(now).toISOString().slice(0, 10);
  const from = new Date(now - 30 * DAY).toISOString().slice(0, 10);
  const rest: BenchRequest = {
    method: 'GET',
    path: `${API_PATH}?action=usage&org_id=1&from=${from}&to=${to}`,
    headers: { authorization: stack.bearer.acme },
  };
  const mcpKey = await reportKey(stack);
  const mcpRoute = routes.find((r) => (r.function as string) === 'mcp');
  const mcp: BenchRequest | undefined = mcpRoute && {
    method: 'POST',
    path: mcpRoute.path,
    headers: { 'x-api-key': mcpKey, accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_session_report', arguments: { from, to } } },
  };
  return {
    days: 31,
    rest: await measure(stack, rest, options),
    ...(mcp && { mcp: await measure(stack, mcp, options) }),
  };
}

/** A key of org 1 with the report scope. */
async function reportKey(stack: BenchStack): Promise<string> {
  return (await createBenchKey(stack.service.services, 'bench reports', ['mcp:reports:read'])).raw;
}

async function measure(stack: BenchStack, request: BenchRequest, options: { warmup: number; samples: number }): Promise<UsageReportCost> {
  const recorder = new RoundTripRecorder();
  const detach = recorder.attach(stack.service.services.client);
  try {
    for (let i = 0; i < options.warmup; i++) ok(await stack.http.send(request));
    const samples = [];
    for (let i = 0; i < options.samples; i++) {
      const { value, calls } = await recorder.measure(() => stack.http.send(request));
      ok(value);
      samples.push(calls);
    }
    const calls = median(samples.map((s) => s.length));
    const stages = median(samples.map((s) => stageCount(s)));
    const typical = samples.find((s) => s.length === calls && stageCount(s) === stages) ?? samples[0]!;
    return { calls, stages, picture: describeStages(typical) };
  } finally {
    detach();
  }
}

/** A refused or failed report stops the run: its figures would mean nothing. */
function ok(response: { status: number; body: string }): void {
  if (response.status !== 200 || /"isError"\s*:\s*true/.test(response.body)) {
    throw new Error(`usage report answered ${response.status}: ${response.body.slice(0, 300)}`);
  }
}

/** The table of the pass. */
export function renderUsageReport(f: UsageReportFigures, markdown: boolean): string[] {
  const rows = [['REST usage', f.rest] as const, ...(f.mcp ? [['MCP get_session_report (metering included)', f.mcp] as const] : [])];
  return [
    '',
    markdown ? `### Usage report of ${f.days} days` : `== Usage report of ${f.days} days ==`,
    '',
    ...table(
      markdown,
      ['request', 'DynamoDB calls', 'stages', 'calls by stage'],
      rows.map(([name, c]) => [
        name,
        String(c.calls),
        String(c.stages),
        c.picture.replace(/(\w+ \w+)( \+ \1)+/g, (m, one: string) => `${one} × ${m.split(' + ').length}`),
      ]),
    ),
  ];
}

/** The JSON line's part: `usage_report_31_days`. */
export function usageReportJson(f: UsageReportFigures): Record<string, unknown> {
  return {
    usage_report_31_days: {
      rest_calls: f.rest.calls,
      rest_stages: f.rest.stages,
      ...(f.mcp && { mcp_calls: f.mcp.calls, mcp_stages: f.mcp.stages }),
    },
  };
}
