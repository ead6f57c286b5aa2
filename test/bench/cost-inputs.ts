/**
 * What the cost model (./cost.ts) measures on the running stack besides capacity and handler time:
 * the bytes a response sends to the client, the size and retention of the items a lifecycle leaves,
 * and whether the stack logs Lambda's platform lines.
 */
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { LoggingFormat, SystemLogLevel } from 'aws-cdk-lib/aws-lambda';
import { LOG_FORMAT, SYSTEM_LOG_LEVEL } from '../../infra/functions.js';
import { localTableNames } from '../../infra/local/dynamo.js';
import { itemBytes } from './capacity.js';
import { MODEL, type StoredItems } from './cost.js';
import type { BenchStack } from './harness.js';
import type { BenchOperation } from './operations.js';
import { check } from './stages.js';

/** Bytes of one answer of `op` on the wire: status line, headers and body. */
export async function responseBytes(stack: BenchStack, op: BenchOperation): Promise<number> {
  const r = await stack.http.send(await op.prepare());
  check(op, r.status, r.body);
  op.done?.(r);
  const headers = Object.entries(r.headers).flatMap(([k, v]) => (Array.isArray(v) ? v : [v ?? '']).map((x) => `${k}: ${x}\r\n`));
  return Buffer.byteLength(`HTTP/1.1 ${r.status} OK\r\n${headers.join('')}\r\n`) + Buffer.byteLength(r.body);
}

/** Sizes (with DynamoDB's per-item overhead) and retention of a lifecycle's token and of a mint's audit record. */
export async function storedItems(stack: BenchStack, token: string): Promise<StoredItems> {
  const nowS = stack.service.services.clock.now() / 1000;
  const { Item: t } = await stack.raw.send(new GetCommand({ TableName: localTableNames.tokens, Key: { token }, ConsistentRead: true }));
  const { Items } = await stack.raw.send(
    new ScanCommand({
      TableName: localTableNames.audit,
      FilterExpression: 'org_id = :o AND #action = :create',
      ExpressionAttributeNames: { '#action': 'action' },
      ExpressionAttributeValues: { ':o': stack.keyRecord.org_id, ':create': 'create-session' },
    }),
  );
  const a = Items?.[0];
  if (!t || !a) throw new Error('no token or audit record to size');
  const days = (item: Record<string, unknown>) => Math.max(0, (Number(item.ttl) - nowS) / 86_400);
  const overhead = MODEL.dynamodbItemOverheadBytes;
  return {
    tokenBytes: itemBytes(t) + overhead,
    tokenDays: days(t),
    auditBytes: itemBytes(a) + overhead,
    auditDays: days(a),
  };
}

/**
 * Whether the deployed functions log Lambda's START/END/REPORT lines: yes unless they use the JSON
 * log format with system log level WARN (read from `infra/functions.ts`, which configures them).
 */
export function platformLinesLogged(): boolean {
  return !(LOG_FORMAT === LoggingFormat.JSON && SYSTEM_LOG_LEVEL === SystemLogLevel.WARN);
}

/** Audit records a request writes, from its stage picture (./stages.ts). */
export function auditRecordsOf(picture: string): number {
  return (picture.match(/PutItem audit/g) ?? []).length;
}
