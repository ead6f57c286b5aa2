/**
 * Throughput with 16 concurrent clients: autocannon against the local front (validate; create then
 * consume of the token just created, as pairs), beside 16 concurrent loops of raw `GetItem` and
 * `UpdateItem` on the same embedded DynamoDB through a client built like the service's. Everything
 * runs in this one process (front, functions, embedded DynamoDB, load), for the service and the
 * baselines alike, so the figures compare like with like on this machine.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import autocannon from 'autocannon';
import { performance } from 'node:perf_hooks';
import { localTableNames } from '../../infra/local/dynamo.js';
import { API_PATH } from '../../shared/platform/route.js';
import type { BenchStack } from './harness.js';
import { CREATE_BODY } from './operations.js';

/** Concurrent clients of every throughput run. */
const CONNECTIONS = 16;

/** What one autocannon connection carries from the create to the consume. */
interface PairContext {
  token?: string | undefined;
}

/** Requests (or pairs) per second of each run. */
export interface ThroughputFigures {
  readonly validate_session: number;
  readonly create_consume_pairs: number;
  readonly raw_get_item: number;
  readonly raw_update_item: number;
}

/** Run the four measurements, `seconds` each, one after the other. */
export async function measureThroughput(stack: BenchStack, token: string, seconds: number): Promise<ThroughputFigures> {
  const url = stack.service.baseUrl;
  const validate = await cannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [{ method: 'GET', path: `${API_PATH}?action=validate-session&token=${token}` }],
  });
  const pairs = await cannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        path: `${API_PATH}?action=create-session`,
        headers: { 'content-type': 'application/json', 'x-api-key': stack.apiKey },
        body: JSON.stringify(CREATE_BODY),
        onResponse: (status, body, context) => {
          (context as PairContext).token = status === 200 ? (JSON.parse(body) as { data: { token: string } }).data.token : undefined;
        },
      },
      {
        method: 'POST',
        path: `${API_PATH}?action=consume-session`,
        headers: { 'content-type': 'application/json' },
        setupRequest: (request, context) => ({ ...request, body: JSON.stringify({ token: (context as PairContext).token }) }),
      },
    ],
  });
  const rawGet = new GetCommand({ TableName: localTableNames.tokens, Key: { token }, ConsistentRead: true });
  const getRate = await loops(seconds, () => stack.raw.send(rawGet));
  const updateRate = await loops(seconds, (i) =>
    stack.raw.send(
      new UpdateCommand({
        TableName: localTableNames.counters,
        Key: { pk: `bench#${i}` },
        UpdateExpression: 'ADD #count :one',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':one': 1 },
      }),
    ),
  );
  return {
    validate_session: validate.ok / validate.seconds,
    create_consume_pairs: pairs.ok / 2 / pairs.seconds,
    raw_get_item: getRate,
    raw_update_item: updateRate,
  };
}

/** One autocannon run; fails the benchmark if any answer was not 2xx. */
async function cannon(options: autocannon.Options): Promise<{ ok: number; seconds: number }> {
  const t0 = performance.now();
  const result = await autocannon({ ...options, timeout: 10 });
  const seconds = (performance.now() - t0) / 1000;
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`throughput run had failures: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  return { ok: result['2xx'], seconds };
}

/** {@link CONNECTIONS} loops calling `work` back to back for `seconds`; completed calls per second. */
async function loops(seconds: number, work: (client: number) => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, i) => {
      while (performance.now() < end) {
        await work(i);
        done++;
      }
    }),
  );
  return done / ((performance.now() - t0) / 1000);
}
