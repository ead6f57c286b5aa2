/**
 * The edge's capacity plan in the synthesized stack: a throttle on every route of THE routes table
 * from its capacity class, the reserved concurrency of create-session, Lambda's log settings on every
 * function, the execute-api choice and the optional WAF web ACL (in us-east-1 or a stack of its own).
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DEFAULT_CAPACITY, headRouteKey, planTotals, routeKey, type CapacityPlan } from '../../infra/capacity.js';
import { capacityPlan, readDeployContext } from '../../infra/config.js';
import { buildDeployment } from '../../infra/deployment.js';
import { nagAcknowledgements } from '../../infra/nag.js';
import { WAF_RATE_RULE, WAF_WINDOW_SECONDS } from '../../infra/waf.js';
import { errorTable } from '../../shared/platform/errors.js';
import { routes } from '../../shared/routes.js';
import { cdkApp, logicalId, referencedIds, resourcesOf, synthesize, workerEntry, type Synthesized } from './fixture.js';

const API_CERTIFICATE = 'arn:aws:acm:eu-west-1:123456789012:certificate/0f8e7a2c-1111-2222-3333-444455556666';
const WEB_ACL = 'arn:aws:wafv2:us-east-1:123456789012:global/webacl/gsts/a1b2c3d4-5678-90ab-cdef-EXAMPLE11111';

const stageOf = (s: Synthesized) => resourcesOf(s.json, 'AWS::ApiGatewayV2::Stage')[0]!;
const fnIdOf = (s: Synthesized, name: string) => logicalId(s.stack, s.stack.functions.functions.get(name)!);
const createSessionFunction = routes.find((r) => r.operation === 'create-session')!.function;
const distributionOf = (json: Synthesized['json']) =>
  resourcesOf(json, 'AWS::CloudFront::Distribution')[0]![1].Properties.DistributionConfig;

describe('the default plan', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthesize();
  });

  test('every route of the routes table has its own throttle, its class’s figures, and nothing else has one', () => {
    const settings = stageOf(s)[1].Properties.RouteSettings as Record<string, unknown>;
    const heads = routes.flatMap((route) => headRouteKey(route) ?? []);
    expect(Object.keys(settings).sort()).toEqual([...routes.map(routeKey), ...heads].sort());
    for (const route of routes) {
      const { rate, burst } = DEFAULT_CAPACITY.routes[route.capacity];
      expect(settings[routeKey(route)]).toEqual({ ThrottlingRateLimit: rate, ThrottlingBurstLimit: burst });
    }
    // A page's HEAD route: the smallest budget.
    const { rate, burst } = DEFAULT_CAPACITY.routes.meta;
    for (const head of heads) expect(settings[head]).toEqual({ ThrottlingRateLimit: rate, ThrottlingBurstLimit: burst });
    // The route keys are the API's own routes (CloudFormation refuses settings for unknown ones).
    const apiRouteKeys = resourcesOf(s.json, 'AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey);
    expect(Object.keys(settings).sort()).toEqual(apiRouteKeys.sort());
  });

  test('the stage is created after every route it throttles', () => {
    const stage = s.template.toJSON().Resources[stageOf(s)[0]] as { DependsOn?: string[] };
    const routeIds = resourcesOf(s.json, 'AWS::ApiGatewayV2::Route').map(([id]) => id);
    expect(stage.DependsOn).toEqual(expect.arrayContaining(routeIds));
  });

  test('key-authenticated routes draw on a budget no anonymous route shares, sized for one key at the decided maximum', () => {
    const key = DEFAULT_CAPACITY.routes.key;
    expect(key.rate).toBeGreaterThanOrEqual(Math.ceil(100_000 / 60)); // 100,000 calls a minute
    for (const route of routes) expect(route.capacity === 'key').toBe(route.auth === 'apiKey');
    // A browser lifecycle (page, then /play/session, which consumes) keeps pace with minting.
    expect(DEFAULT_CAPACITY.routes.token.rate).toBeGreaterThanOrEqual(key.rate);
    expect(DEFAULT_CAPACITY.routes.play.rate).toBeGreaterThanOrEqual(key.rate);
  });

  test('routes nobody planned for (none exist today) get the smallest budget', () => {
    expect(stageOf(s)[1].Properties.DefaultRouteSettings).toEqual({
      ThrottlingRateLimit: DEFAULT_CAPACITY.routes.meta.rate,
      ThrottlingBurstLimit: DEFAULT_CAPACITY.routes.meta.burst,
    });
  });

  test('the synth warns that the plan needs a larger account quota than AWS’s default', () => {
    const { total } = planTotals(routes, DEFAULT_CAPACITY);
    // The routes' budgets added up (infra/capacity.ts): a route added or removed changes it.
    expect(total).toBe(22_440);
    Annotations.fromStack(s.stack).hasWarning('*', Match.stringLikeRegexp(`add up to ${total} requests/s.*L-8A5B8E43`));
  });

  test('create-session’s function keeps 200 executions; no other function reserves any', () => {
    for (const [id, fn] of resourcesOf(s.json, 'AWS::Lambda::Function')) {
      const expected = id === fnIdOf(s, createSessionFunction) ? 200 : undefined;
      expect(fn.Properties.ReservedConcurrentExecutions).toBe(expected);
    }
  });

  test('every function logs JSON, drops the platform’s INFO lines, and filters the application at the level the code logs at', () => {
    const functions = resourcesOf(s.json, 'AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThan(0);
    for (const [, fn] of functions) {
      expect(fn.Properties.LoggingConfig).toMatchObject({ LogFormat: 'JSON', SystemLogLevel: 'WARN', ApplicationLogLevel: 'INFO' });
      expect(fn.Properties.Environment.Variables.POWERTOOLS_LOG_LEVEL).toBe(fn.Properties.LoggingConfig.ApplicationLogLevel);
    }
  });

  test('execute-api stays enabled (the origin without an API domain) and the functions’ origin check refuses direct calls', () => {
    const api = resourcesOf(s.json, 'AWS::ApiGatewayV2::Api')[0]![1];
    expect(api.Properties.DisableExecuteApiEndpoint).not.toBe(true);
    expect(resourcesOf(s.json, 'AWS::ApiGatewayV2::DomainName')).toHaveLength(0);
    expect(JSON.stringify(distributionOf(s.json).Origins[0].DomainName)).toContain('execute-api');
  });

  test('no web ACL unless asked for', () => {
    expect(resourcesOf(s.json, 'AWS::WAFv2::WebACL')).toHaveLength(0);
    expect(distributionOf(s.json).WebACLId).toBeUndefined();
  });
});

describe('a plan from context', () => {
  const context = (values: Record<string, unknown>) => readDeployContext((key) => ({ noAlarmTarget: 'true', ...values })[key]);

  test('overrides arrive as JSON (-c) or an object (cdk.json); what is left out keeps its default', () => {
    const fromJson = capacityPlan(context({ capacity: '{"play":{"rate":500},"accountRateLimit":25000}' }).capacity);
    expect(fromJson.routes.play).toEqual({ rate: 500, burst: DEFAULT_CAPACITY.routes.play.burst });
    expect(fromJson.routes.key).toEqual(DEFAULT_CAPACITY.routes.key);
    expect(fromJson.accountRateLimit).toBe(25_000);
    expect(fromJson.createSessionConcurrency).toBe(DEFAULT_CAPACITY.createSessionConcurrency);
    const fromObject = capacityPlan(context({ capacity: { createSessionConcurrency: 'none', key: { burst: 3000 } } }).capacity);
    expect(fromObject.createSessionConcurrency).toBe('none');
    expect(fromObject.routes.key).toEqual({ rate: DEFAULT_CAPACITY.routes.key.rate, burst: 3000 });
    expect(capacityPlan(undefined)).toEqual(DEFAULT_CAPACITY);
  });

  test('mistakes fail the synth with a message naming the parameter', () => {
    expect(() => context({ capacity: '{"play":' })).toThrow(/capacity/);
    expect(() => context({ capacity: { plays: { rate: 1 } } })).toThrow(/capacity/);
    expect(() => context({ capacity: { key: { rate: 0 } } })).toThrow(/capacity\.key\.rate/);
    expect(() => context({ capacity: { createSessionConcurrency: 'all' } })).toThrow(/capacity\.createSessionConcurrency/);
    expect(() => context({ apiDomainName: 'api.example.com' })).toThrow(/apiDomainName and apiCertificateArn go together/);
    expect(() => context({ wafRateLimit: '5' })).toThrow(/wafRateLimit/);
    const tooFast = capacityPlan(context({ capacity: { key: { rate: 20_000 } } }).capacity);
    expect(() => synthesize({ capacity: tooFast })).toThrow(/capacity\.key\.rate 20000 is above accountRateLimit 10000/);
  });

  describe('synthesized', () => {
    let s: Synthesized;
    const plan: CapacityPlan = capacityPlan({
      key: { rate: 3000, burst: 1500 },
      token: { rate: 2500 },
      play: { rate: 1000, burst: 500 },
      accountRateLimit: 30_000,
      createSessionConcurrency: 'none',
    });
    beforeAll(() => {
      s = synthesize({ capacity: plan });
    });

    test('the route throttles follow it', () => {
      const settings = stageOf(s)[1].Properties.RouteSettings as Record<string, { ThrottlingRateLimit: number }>;
      for (const route of routes) expect(settings[routeKey(route)]!.ThrottlingRateLimit).toBe(plan.routes[route.capacity].rate);
    });

    test('“none” reserves no concurrency', () => {
      for (const [, fn] of resourcesOf(s.json, 'AWS::Lambda::Function')) expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
    });

    test('within the account quota the synth does not warn', () => {
      expect(planTotals(routes, plan).total).toBeLessThanOrEqual(plan.accountRateLimit);
      Annotations.fromStack(s.stack).hasNoWarning('*', Match.stringLikeRegexp('add up to'));
    });
  });
});

describe('with an API domain', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthesize({ apiDomain: { domainName: 'api.play.example.com', certificateArn: API_CERTIFICATE } });
  });

  test('the execute-api endpoint is disabled: API Gateway refuses it before any function runs', () => {
    s.template.hasResourceProperties('AWS::ApiGatewayV2::Api', { DisableExecuteApiEndpoint: true });
  });

  test('the API answers on its domain, mapped to the throttled stage', () => {
    const [[domainId, domain]] = resourcesOf(s.json, 'AWS::ApiGatewayV2::DomainName') as unknown as [[string, { Properties: any }]];
    expect(domain.Properties).toMatchObject({
      DomainName: 'api.play.example.com',
      DomainNameConfigurations: [{ CertificateArn: API_CERTIFICATE, EndpointType: 'REGIONAL', SecurityPolicy: 'TLS_1_2' }],
    });
    const [[mappingId, mapping]] = resourcesOf(s.json, 'AWS::ApiGatewayV2::ApiMapping') as unknown as [[string, { Properties: any }]];
    expect(referencedIds(mapping.Properties.DomainName)).toEqual(new Set([domainId]));
    expect(mapping.Properties.Stage).toBe('$default');
    const dependsOn = (s.template.toJSON().Resources[mappingId] as { DependsOn?: string[] }).DependsOn;
    expect(dependsOn).toContain(stageOf(s)[0]);
    expect(referencedIds(s.json.Outputs?.ApiDomainTarget?.Value)).toEqual(new Set([domainId]));
  });

  test('CloudFront reaches the API on that domain, still with the origin secret', () => {
    const [origin] = distributionOf(s.json).Origins;
    expect(origin.DomainName).toBe('api.play.example.com');
    expect(origin.OriginCustomHeaders.map((h: { HeaderName: string }) => h.HeaderName)).toContain('x-origin-verify');
  });

  test('cdk-nag stays clean', () => {
    expect(new AwsSolutionsChecks().validateScope(s.app).violations).toEqual([]);
  });
});

describe('the WAF flag', () => {
  const synthApp = (context: Record<string, unknown>, region?: string) => {
    const app = cdkApp({ 'aws:cdk:bundling-stacks': [] });
    const deployment = buildDeployment(
      app,
      readDeployContext((key) => ({ noAlarmTarget: 'true', ...context })[key]),
      region ? { account: '123456789012', region } : undefined,
      { workerEntry },
    );
    return { app, ...deployment };
  };

  test('in us-east-1: a web ACL of the stack with the anonymous per-address rate rule, attached to the distribution', () => {
    const { app, service, waf } = synthApp({ wafRateLimit: '2000' }, 'us-east-1');
    expect(waf).toBeUndefined();
    const json = Template.fromStack(service).toJSON() as Synthesized['json'];
    const [[aclId, acl]] = resourcesOf(json, 'AWS::WAFv2::WebACL') as unknown as [[string, { Properties: any }]];
    expect(acl.Properties).toMatchObject({ Scope: 'CLOUDFRONT', DefaultAction: { Allow: {} } });
    const [rule] = acl.Properties.Rules;
    expect(rule).toMatchObject({
      Name: WAF_RATE_RULE,
      Action: { Block: { CustomResponse: { ResponseCode: 429 } } },
      Statement: { RateBasedStatement: { Limit: 2000, AggregateKeyType: 'IP', EvaluationWindowSec: WAF_WINDOW_SECONDS } },
    });
    // Requests with a credential are left to the service's per-key limits.
    const scopeDown = JSON.stringify(rule.Statement.RateBasedStatement.ScopeDownStatement);
    expect(scopeDown).toContain('NotStatement');
    expect(scopeDown).toContain('x-api-key');
    expect(scopeDown).toContain('authorization');
    const body = JSON.parse(acl.Properties.CustomResponseBodies[rule.Action.Block.CustomResponse.CustomResponseBodyKey].Content);
    // The service's envelope with THE table's code; no request_id (a WAF body is fixed text).
    expect(body).toEqual({ success: false, error: expect.any(String), code: errorTable.RateLimited[1] });
    // The headers every answer of the service carries (nosniff): the WAF's answer is its own.
    expect(rule.Action.Block.CustomResponse.ResponseHeaders).toEqual([{ Name: 'x-content-type-options', Value: 'nosniff' }]);
    expect(distributionOf(json).WebACLId).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    // The web ACL satisfies cdk-nag's CFR2: no acknowledgement left, no finding.
    expect(nagAcknowledgements(service).map((a) => a.id)).not.toContain('AwsSolutions-CFR2');
    expect(new AwsSolutionsChecks().validateScope(app).violations).toEqual([]);
  });

  test('in another region: the web ACL is a stack of its own in us-east-1, attached once its ARN is given', () => {
    const pending = synthApp({ wafRateLimit: '2000' }, 'eu-west-1');
    expect(pending.waf!.region).toBe('us-east-1');
    const wafJson = Template.fromStack(pending.waf!).toJSON() as Synthesized['json'];
    expect(resourcesOf(wafJson, 'AWS::WAFv2::WebACL')).toHaveLength(1);
    expect(wafJson.Outputs?.WebAclArn).toBeDefined();
    const serviceJson = Template.fromStack(pending.service).toJSON() as Synthesized['json'];
    expect(resourcesOf(serviceJson, 'AWS::WAFv2::WebACL')).toHaveLength(0);
    Annotations.fromStack(pending.service).hasWarning('*', Match.stringLikeRegexp('deploy Game.*-EdgeWaf first'));

    const attached = synthApp({ wafRateLimit: '2000', webAclArn: WEB_ACL }, 'eu-west-1');
    expect(distributionOf(Template.fromStack(attached.service).toJSON() as Synthesized['json']).WebACLId).toBe(WEB_ACL);
    Annotations.fromStack(attached.service).hasNoWarning('*', Match.stringLikeRegexp('EdgeWaf'));
    expect(new AwsSolutionsChecks().validateScope(attached.app).violations).toEqual([]);
  });

  test('one web ACL per distribution; never a CLOUDFRONT web ACL outside us-east-1', () => {
    expect(() => synthApp({ wafRateLimit: '2000', webAclArn: WEB_ACL }, 'us-east-1')).toThrow(/not both/);
    expect(() => synthesize({ wafRateLimit: 2000 })).toThrow(/only be created in us-east-1, not eu-west-1/);
  });
});
