/**
 * The synthesized stack, checked against the sources of truth: THE tables table (tables) and THE
 * routes table (functions and their permissions); the API, the edge, cdk-nag and the health function
 * are in `stack-edge.test.ts`, the alarms in `monitoring.test.ts`, the function environments (THE env
 * schema) in `function-env.test.ts`. Everything iterates the tables, so new routes are covered as
 * they land. One synth per file: loading aws-cdk-lib dominates the time of an infra test file.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { FUNCTION_MEMORY_MB } from '../../infra/functions.js';
import { createTableInput } from '../../infra/local/dynamo.js';
import { functionAccess, functionNames } from '../../infra/permissions.js';
import { functionEnvVars } from '../../shared/platform/env-parts.js';
import { routes } from '../../shared/routes.js';
import { tables, type TableDefinition, type TableName } from '../../shared/tables.js';
import { lookups, asList, logicalId, referencedIds, resourcesOf, synthesize, type Synthesized } from './fixture.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize();
});

const tableNames = Object.keys(tables) as TableName[];
const fnNames = functionNames(routes);
const { tableId, fnId, fnResource } = lookups(() => s);

describe('tables', () => {
  const tableResource = (name: TableName) => s.json.Resources[tableId(name)]!;
  const byName = <T extends { AttributeName?: string; IndexName?: string }>(list: T[] = []) =>
    [...list].sort((a, b) => String(a.AttributeName ?? a.IndexName).localeCompare(String(b.AttributeName ?? b.IndexName)));

  test('one DynamoDB table per entry of the tables table', () => {
    expect(resourcesOf(s.json, 'AWS::DynamoDB::Table')).toHaveLength(tableNames.length);
  });

  describe.each(tableNames.map((name) => [name] as const))('%s', (name) => {
    const def: TableDefinition = tables[name];

    test('has exactly the keys and indexes the local run creates (no drift)', () => {
      const local = createTableInput(def, 'local-name');
      const props = tableResource(name).Properties;
      expect(props.KeySchema).toEqual(local.KeySchema);
      expect(byName(props.AttributeDefinitions)).toEqual(byName(local.AttributeDefinitions));
      const localIndexes = (local.GlobalSecondaryIndexes ?? []).map((i) => ({
        IndexName: i.IndexName,
        KeySchema: i.KeySchema,
        Projection: i.Projection,
      }));
      expect(byName(props.GlobalSecondaryIndexes)).toEqual(byName(localIndexes));
      expect(props.BillingMode).toBe(local.BillingMode);
    });

    test('TTL on the attribute the definition names, and only then', () => {
      const ttl = tableResource(name).Properties.TimeToLiveSpecification;
      if (def.ttlAttribute) expect(ttl).toEqual({ AttributeName: def.ttlAttribute, Enabled: true });
      else expect(ttl).toBeUndefined();
    });

    test('on demand, point-in-time recovery, deletion protection, encryption, retained on stack deletion', () => {
      const resource = tableResource(name);
      expect(resource.Properties).toMatchObject({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
        SSESpecification: { SSEEnabled: true },
      });
      expect(resource.DeletionPolicy).toBe('Retain');
      expect(resource.UpdateReplacePolicy).toBe('Retain');
    });

    test('its physical name is a stack output (the seed script reads it)', () => {
      expect(s.json.Outputs?.[`${def.id}TableName`]?.Value).toEqual({ Ref: tableId(name) });
    });
  });
});

describe('functions', () => {
  test('one Lambda function per distinct function of the routes table (the workers’: webhook-workers.test.ts)', () => {
    const workerIds = new Set([...s.stack.workers.functions.values()].map((fn) => logicalId(s.stack, fn)));
    expect(
      resourcesOf(s.json, 'AWS::Lambda::Function')
        .map(([id]) => id)
        .filter((id) => !workerIds.has(id))
        .sort(),
    ).toEqual(fnNames.map(fnId).sort());
  });

  test.each(fnNames.map((n) => [n] as const))('%s: runtime, architecture, handler, memory, tracing, log group', (name) => {
    const props = fnResource(name).Properties;
    expect(props).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      MemorySize: FUNCTION_MEMORY_MB,
      Timeout: 10,
      // X-Ray is opt-in (context `tracing`): its cost is line item of the benchmark's cost.
      TracingConfig: { Mode: 'PassThrough' },
    });
    const logGroupId = logicalId(s.stack, s.stack.functions.logGroups.get(name)!);
    expect(props.LoggingConfig).toEqual({
      LogGroup: { Ref: logGroupId },
      LogFormat: 'JSON',
      SystemLogLevel: 'WARN',
      ApplicationLogLevel: 'INFO',
    });
    expect(s.json.Resources[logGroupId]!.Properties.RetentionInDays).toBe(30);
    // The origin secret is read through the Parameters and Secrets extension layer (arm64 build).
    expect(JSON.stringify(props.Layers)).toContain('AWS-Parameters-and-Secrets-Lambda-Extension-Arm64');
  });

  describe('permissions', () => {
    const policyOf = (name: string) => {
      const roleId = logicalId(s.stack, s.stack.functions.functions.get(name)!.role as never);
      const policies = resourcesOf(s.json, 'AWS::IAM::Policy').filter(([, p]) => referencedIds(p.Properties.Roles).has(roleId));
      expect(policies).toHaveLength(1);
      return asList(policies[0]![1].Properties.PolicyDocument.Statement) as {
        Action: string | string[];
        Resource: unknown;
        Effect: string;
      }[];
    };
    const tableIds = () => new Map(tableNames.map((n) => [tableId(n), n]));

    test('roles carry no AWS managed policy', () => {
      for (const name of fnNames) {
        const role = s.json.Resources[fnResource(name).Properties.Role['Fn::GetAtt'][0]]!;
        expect(role.Properties.ManagedPolicyArns).toBeUndefined();
      }
    });

    test.each(fnNames.map((n) => [n] as const))('%s: exactly the DynamoDB actions and tables its routes declare', (name) => {
      const statements = policyOf(name);
      const expected = functionAccess(routes, name);
      const granted: Record<string, string[]> = {};
      for (const st of statements) {
        const actions = asList(st.Action);
        const dynamo = actions.filter((a) => a.startsWith('dynamodb:'));
        const touched = [...referencedIds(st.Resource)].filter((id) => tableIds().has(id));
        if (dynamo.length === 0) {
          // Statements about anything else never name a table.
          expect(touched).toEqual([]);
          continue;
        }
        expect(touched).toHaveLength(1);
        const table = tableIds().get(touched[0]!)!;
        granted[table] = [...(granted[table] ?? []), ...dynamo.map((a) => a.slice('dynamodb:'.length))].sort();
        // Index ARNs exactly where Query is granted, naming the table's own indexes.
        const indexes = asList(st.Resource)
          .map((r) => JSON.stringify(r).match(/\/index\/([\w-]+)/)?.[1])
          .filter((i): i is string => i !== undefined);
        expect(indexes.sort()).toEqual(dynamo.includes('dynamodb:Query') ? tables[table].indexes.map((i) => i.name).sort() : []);
      }
      expect(granted).toEqual(expected);
    });

    test.each(fnNames.map((n) => [n] as const))('%s: no wildcard actions; Resource "*" only for X-Ray', (name) => {
      for (const st of policyOf(name)) {
        expect(st.Effect).toBe('Allow');
        for (const action of asList(st.Action)) expect(action).not.toContain('*');
        if (asList(st.Resource).includes('*')) expect(asList(st.Action).every((a) => a.startsWith('xray:'))).toBe(true);
      }
    });

    test.each(fnNames.map((n) => [n] as const))(
      '%s: logs only to its own log group, reads the origin secret and exactly the secrets its code reads',
      (name) => {
        const statements = policyOf(name);
        const logs = statements.filter((st) => asList(st.Action).some((a) => a.startsWith('logs:')));
        expect(logs.flatMap((st) => [...referencedIds(st.Resource)])).toEqual([logicalId(s.stack, s.stack.functions.logGroups.get(name)!)]);
        const secrets = statements.filter((st) => asList(st.Action).some((a) => a.startsWith('secretsmanager:')));
        const reads = functionEnvVars(routes, name);
        const expected = [
          s.stack.originSecret,
          ...(reads.includes('PLAY_COOKIE_SECRET_ARN') ? [s.stack.playCookieSecret] : []),
          ...(reads.includes('SESSION_ID_KEY_ARN') ? [s.stack.sessionIdKey] : []),
          ...(reads.includes('WEBHOOK_SECRET_KEY_ARN') ? [s.stack.webhookSecretKey] : []),
        ].map((secret) => logicalId(s.stack, secret));
        expect(secrets.flatMap((st) => [...referencedIds(st.Resource)]).sort()).toEqual(expected.sort());
        for (const st of secrets) expect(asList(st.Action)).toContain('secretsmanager:GetSecretValue');
      },
    );
  });
});
