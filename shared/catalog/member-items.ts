/**
 * Membership items of the catalog (`ORG#<id>/MEMBER#<sub>`) and their keys in its `by_org` index:
 * `SUBJECT#<sub>` / `ORG#<zero-padded id>`, so that one Query lists a subject's organizations by id
 * (list-orgs). The index's playable entries sit under `ORG#<id>` partitions, so neither kind of
 * entry is ever read by the other's queries.
 */
import { paginateScan, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Role } from './model.js';
import { isConditionalFailure, sortableId, type StoreOptions } from '../platform/dynamo/client.js';

/** The index keys of a membership. */
function memberIndexKeys(orgId: number, subject: string): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: `SUBJECT#${subject}`, gsi1sk: `ORG#${sortableId(orgId)}` };
}

/** A whole membership item. */
export function memberItem(orgId: number, subject: string, role: Role): Record<string, unknown> {
  return { pk: `ORG#${orgId}`, sk: `MEMBER#${subject}`, org_id: orgId, subject, role, ...memberIndexKeys(orgId, subject) };
}

/**
 * Give every membership its index keys (those written before list-orgs have none, so the org picker
 * would not show them). One Scan of the catalog, one conditional update per membership lacking them
 * (never recreating one deleted meanwhile); safe to run again. @returns how many memberships were seen
 */
export async function backfillMemberKeys(options: StoreOptions): Promise<number> {
  let seen = 0;
  const pages = paginateScan(
    { client: options.client },
    {
      TableName: options.tableName,
      FilterExpression: 'begins_with(sk, :member)',
      ExpressionAttributeValues: { ':member': 'MEMBER#' },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      seen++;
      if (item.gsi1pk !== undefined) continue;
      const keys = memberIndexKeys(item.org_id as number, item.subject as string);
      await options.client
        .send(
          new UpdateCommand({
            TableName: options.tableName,
            Key: { pk: item.pk, sk: item.sk },
            UpdateExpression: 'SET gsi1pk = :pk, gsi1sk = :sk',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':pk': keys.gsi1pk, ':sk': keys.gsi1sk },
          }),
        )
        .catch((error: unknown) => {
          // Deleted since the scan: nothing to give keys to.
          if (!isConditionalFailure(error)) throw error;
        });
    }
  }
  return seen;
}
