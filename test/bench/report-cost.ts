/** The report's cost section: line items of both lifecycles, and the log bytes before and after Lambda's JSON/WARN log format. */
import { TRACING_DEFAULT } from '../../infra/config.js';
import { ACCESS_LOG_BYTES, PLATFORM_BYTES, PRICES, type LifecycleCost } from './cost.js';
import type { Lifecycles } from './lifecycles.js';
import { round } from './stats.js';
import { table } from './table.js';

const LINES: Readonly<Record<keyof LifecycleCost['items'], string>> = {
  dynamodb_units: `DynamoDB on demand units ($${PRICES.dynamodbReadPerMillion}/M RRU, $${PRICES.dynamodbWritePerMillion}/M WRU)`,
  lambda: `Lambda arm64 ($${PRICES.lambdaPerMillionRequests}/M requests, $${PRICES.lambdaArmPerGbSecond}/GB-s)`,
  http_api: `HTTP API ($${PRICES.httpApiPerMillion}/M requests)`,
  cloudfront: `CloudFront ($${PRICES.cloudFrontHttpsPer10k}/10k HTTPS requests + $${PRICES.cloudFrontFunctionPerMillion}/M function invocations)`,
  logs_ingestion: `CloudWatch Logs ingestion ($${PRICES.logsIngestionPerGb}/GB)`,
  logs_storage: `CloudWatch Logs storage ($${PRICES.logsStoragePerGbMonth}/GB-month, 30-day retention)`,
  xray: `X-Ray (context \`tracing\`, ${TRACING_DEFAULT ? 'on' : 'off'} by default; when on, 5% sampled, $${PRICES.xrayPerMillionTraces}/M traces)`,
  data_transfer_out: `Data transfer out via CloudFront ($${PRICES.cloudFrontTransferOutPerGb}/GB)`,
  dynamodb_storage: `DynamoDB storage ($${PRICES.dynamodbStoragePerGbMonth}/GB-month, items × their TTL)`,
  dynamodb_pitr: `DynamoDB PITR ($${PRICES.dynamodbPitrPerGbMonth}/GB-month)`,
};

/** The cost tables. */
export function renderCost(c: Lifecycles, lifecycleUnits: number, markdown: boolean): string[] {
  const usd = (n: number) => `$${n.toFixed(n < 0.1 ? 4 : 2)}`;
  const names = Object.keys(LINES) as (keyof typeof LINES)[];
  return [
    ...table(
      markdown,
      ['item', 'API lifecycle', 'browser lifecycle'],
      [
        [
          'capacity units per lifecycle (read + write)',
          `${lifecycleUnits.toFixed(1)} (${c.api.read.toFixed(1)} RRU + ${c.api.write.toFixed(1)} WRU)`,
          `${(c.browser.read + c.browser.write).toFixed(1)} (${c.browser.read.toFixed(1)} RRU + ${c.browser.write.toFixed(1)} WRU)`,
        ],
        [
          'log bytes per request (service lines + access log + platform lines)',
          c.api.logBytesPerRequest.toFixed(0),
          c.browser.logBytesPerRequest.toFixed(0),
        ],
        ...names.map((k) => [LINES[k], usd(c.api.items[k]), usd(c.browser.items[k])]),
        ['total per million lifecycles', usd(c.api.total), usd(c.browser.total)],
      ],
    ),
    '',
    ...table(
      markdown,
      ['Lambda log format (API lifecycle)', 'log bytes per request', 'logs $ per million lifecycles', 'total $ per million lifecycles'],
      [
        [`text, system level INFO (START/END/REPORT: ${PLATFORM_BYTES} bytes)${c.platformLines ? ' [this stack]' : ''}`, c.apiBefore],
        [`JSON, system level WARN (no platform lines)${c.platformLines ? '' : ' [this stack]'}`, c.apiAfter],
      ].map(([label, x]) => {
        const cost = x as LifecycleCost;
        return [
          label as string,
          cost.logBytesPerRequest.toFixed(0),
          usd(cost.items.logs_ingestion + cost.items.logs_storage),
          usd(cost.total),
        ];
      }),
    ),
    '',
    `(access log line: ${ACCESS_LOG_BYTES} bytes per request; stored per lifecycle: a token item for its TTL, each audit record for its TTL)`,
  ];
}

/** `cost_per_million_usd` of the JSON line. */
export function costJson(c: Lifecycles): Record<string, unknown> {
  const items = (x: LifecycleCost) => Object.fromEntries(Object.entries(x.items).map(([k, v]) => [k, round(v, 4)]));
  return {
    api_lifecycle: round(c.api.total, 2),
    browser_lifecycle: round(c.browser.total, 2),
    items: items(c.api),
    browser_items: items(c.browser),
    platform_log_lines: c.platformLines,
    log_bytes_per_request: { before: round(c.apiBefore.logBytesPerRequest, 0), after: round(c.apiAfter.logBytesPerRequest, 0) },
    api_lifecycle_before: round(c.apiBefore.total, 2),
    api_lifecycle_after: round(c.apiAfter.total, 2),
  };
}
