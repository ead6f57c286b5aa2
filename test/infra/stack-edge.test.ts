/**
 * The synthesized stack's HTTP API (one route per operation of THE routes table), its edge (the
 * generated CloudFront function, the origin and its secret header), cdk-nag, and the health
 * function. Tables and functions: `stack.test.ts`; alarms: `monitoring.test.ts`.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { edgeRewriteSource } from '../../infra/edge-rewrite.js';
import { pascalCase } from '../../infra/construct-ids.js';
import { nagAcknowledgements } from '../../infra/nag.js';
import { functionNames } from '../../infra/permissions.js';
import { functionEnvVars } from '../../shared/platform/env-parts.js';
import { ORIGIN_VERIFY_HEADER } from '../../shared/platform/secrets.js';
import { answersHead, routes } from '../../shared/routes.js';
import { originPath } from '../../shared/platform/route.js';
import { lookups, asList, logicalId, referencedIds, resourcesOf, synthesize, type Synthesized } from './fixture.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize();
});

const fnNames = functionNames(routes);
const { tableId, fnId, fnResource } = lookups(() => s);

describe('HTTP API', () => {
  test('one route per operation, on its origin path, integrated with its function (and HEAD for pages)', () => {
    const apiRoutes = resourcesOf(s.json, 'AWS::ApiGatewayV2::Route');
    const keys = routes.flatMap((r) => [`${r.method} ${originPath(r)}`, ...(answersHead(r) ? [`HEAD ${originPath(r)}`] : [])]);
    expect(apiRoutes.map(([, r]) => r.Properties.RouteKey).sort()).toEqual(keys.sort());
    for (const route of routes.filter(answersHead)) {
      const [, head] = apiRoutes.find(([, r]) => r.Properties.RouteKey === `HEAD ${originPath(route)}`)!;
      const integration = s.json.Resources[[...referencedIds(head.Properties.Target)][0]!]!;
      expect(referencedIds(integration.Properties.IntegrationUri)).toEqual(new Set([fnId(route.function)]));
    }
    for (const route of routes) {
      const [, resource] = apiRoutes.find(([, r]) => r.Properties.RouteKey === `${route.method} ${originPath(route)}`)!;
      const integrationId = [...referencedIds(resource.Properties.Target)][0]!;
      const integration = s.json.Resources[integrationId]!;
      expect(integration.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
      expect(referencedIds(integration.Properties.IntegrationUri)).toEqual(new Set([fnId(route.function)]));
    }
  });

  test('one integration per function', () => {
    expect(resourcesOf(s.json, 'AWS::ApiGatewayV2::Integration')).toHaveLength(fnNames.length);
  });

  test('the stage deploys automatically, writes JSON access logs and is throttled per route (test/infra/capacity.test.ts)', () => {
    s.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      RouteSettings: Match.anyValue(),
    });
    const [[, stage]] = resourcesOf(s.json, 'AWS::ApiGatewayV2::Stage') as unknown as [[string, { Properties: any }]];
    expect(JSON.parse(stage.Properties.AccessLogSettings.Format)).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
    });
  });
});

describe('edge', () => {
  const distribution = () => resourcesOf(s.json, 'AWS::CloudFront::Distribution')[0]![1].Properties.DistributionConfig;

  test('the CloudFront function is the generator’s code, on runtime cloudfront-js-2.0', () => {
    const functions = resourcesOf(s.json, 'AWS::CloudFront::Function');
    expect(functions).toHaveLength(1);
    expect(functions[0]![1].Properties).toMatchObject({
      FunctionCode: edgeRewriteSource(routes),
      FunctionConfig: { Runtime: 'cloudfront-js-2.0' },
      AutoPublish: true,
    });
  });

  test('every request passes the rewrite as a viewer request, uncached, with every viewer header but Host', () => {
    const behavior = distribution().DefaultCacheBehavior;
    expect(behavior.FunctionAssociations).toEqual([
      {
        EventType: 'viewer-request',
        FunctionARN: { 'Fn::GetAtt': [resourcesOf(s.json, 'AWS::CloudFront::Function')[0]![0], 'FunctionARN'] },
      },
    ]);
    expect(behavior).toMatchObject({
      ViewerProtocolPolicy: 'https-only',
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
      CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad', // Managed-CachingDisabled
      OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac', // Managed-AllViewerExceptHostHeader
    });
    expect(distribution().CacheBehaviors).toBeUndefined();
  });

  test('the origin is the HTTP API over TLS 1.2, and every origin request carries the secret header', () => {
    const [origin] = distribution().Origins;
    expect(referencedIds(origin.DomainName)).toEqual(new Set([logicalId(s.stack, s.stack.api.api)]));
    expect(origin.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] });
    const header = origin.OriginCustomHeaders.find((h: { HeaderName: string }) => h.HeaderName === ORIGIN_VERIFY_HEADER);
    expect(JSON.stringify(header.HeaderValue)).toContain('{{resolve:secretsmanager:');
    expect(referencedIds(header.HeaderValue)).toEqual(new Set([logicalId(s.stack, s.stack.originSecret)]));
  });

  test('functions learn the public base URL: the distribution’s domain', () => {
    const readers = fnNames.filter((name) => functionEnvVars(routes, name).includes('PUBLIC_BASE_URL'));
    expect(readers.length).toBeGreaterThan(0);
    for (const name of readers) {
      const url = fnResource(name).Properties.Environment.Variables.PUBLIC_BASE_URL;
      expect(referencedIds(url)).toEqual(new Set([logicalId(s.stack, s.stack.edge.distribution)]));
    }
  });
});

describe('cdk-nag', () => {
  test('the AWS Solutions checks find nothing unacknowledged', () => {
    const report = new AwsSolutionsChecks().validateScope(s.app);
    expect(report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`)).toEqual([]);
    expect(report.success).toBe(true);
  });

  test('every acknowledgement carries a reason of its own', () => {
    const acks = nagAcknowledgements(s.stack);
    expect(acks.length).toBeGreaterThan(0);
    for (const ack of acks) {
      expect(ack.id).toMatch(/^AwsSolutions-[A-Z]+\d+(\[.+\])?$/);
      expect(ack.reason.length).toBeGreaterThan(60);
    }
    // The same text twice would mean a reason copied instead of thought about (per-function X-Ray excepted).
    const reasons = new Set(acks.filter((a) => !a.id.startsWith('AwsSolutions-IAM5')).map((a) => `${a.id}|${a.reason}`));
    expect(new Set([...reasons].map((r) => r.split('|')[1])).size).toBe(reasons.size);
  });
});

test('construct ids of functions are stable names derived from the routes table', () => {
  for (const name of fnNames) expect(s.stack.functions.functions.get(name)!.node.id).toBe(pascalCase(name));
});

describe('health', () => {
  test('its own function, route GET /api/health on it, and only GetItem on the catalog table', () => {
    expect(fnNames).toContain('health');
    const route = resourcesOf(s.json, 'AWS::ApiGatewayV2::Route').find(([, r]) => r.Properties.RouteKey === 'GET /api/health');
    expect(route).toBeDefined();
    const integration = s.json.Resources[[...referencedIds(route![1].Properties.Target)][0]!]!;
    expect(referencedIds(integration.Properties.IntegrationUri)).toEqual(new Set([fnId('health')]));
    const roleId = logicalId(s.stack, s.stack.functions.functions.get('health')!.role as never);
    const statements = resourcesOf(s.json, 'AWS::IAM::Policy')
      .filter(([, p]) => referencedIds(p.Properties.Roles).has(roleId))
      .flatMap(([, p]) => asList(p.Properties.PolicyDocument.Statement) as { Action: string | string[]; Resource: unknown }[]);
    const dynamo = statements.filter((st) => asList(st.Action).some((a) => a.startsWith('dynamodb:')));
    expect(dynamo.map((st) => asList(st.Action))).toEqual([['dynamodb:GetItem']]);
    expect([...referencedIds(dynamo[0]!.Resource)]).toEqual([tableId('catalog')]);
  });

  test('its environment: the catalog table and the build version, no secret', () => {
    const synthesized = synthesize({ buildVersion: 'a1b2c3d' });
    const id = logicalId(synthesized.stack, synthesized.stack.functions.functions.get('health')!);
    const variables = synthesized.json.Resources[id]!.Properties.Environment.Variables as Record<string, unknown>;
    expect(variables.BUILD_VERSION).toBe('a1b2c3d');
    expect(Object.keys(variables)).toContain('CATALOG_TABLE');
    for (const secret of ['PLAY_COOKIE_SECRET', 'SESSION_ID_KEY', 'JWT_ISSUER']) expect(Object.keys(variables)).not.toContain(secret);
  });
});
