import { Template } from 'aws-cdk-lib/assertions';
/**
 * The deployment parameters (CDK context) and what they change in the stack: custom domain, WAF,
 * an existing alarm topic, the alarm email. Also checks that every cdk-nag acknowledgement still
 * matches a real finding, by synthesizing once without them.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DEFAULT_CAPACITY } from '../../infra/capacity.js';
import { DEFAULT_STACK_NAME, readDeployContext, serviceStackProps } from '../../infra/config.js';
import { nagAcknowledgements } from '../../infra/nag.js';
import { UNCONFIGURED_ISSUER } from '../../infra/stack-props.js';
import { buildDeployment } from '../../infra/deployment.js';
import { functionEnvVars } from '../../shared/platform/env-parts.js';
import { routes } from '../../shared/routes.js';
import { CDK_JSON_CONTEXT, cdkApp, logicalId, resourcesOf, synthesize, workerEntry, type Synthesized } from './fixture.js';
import { readFileSync } from 'node:fs';

const CERTIFICATE = 'arn:aws:acm:us-east-1:123456789012:certificate/0f8e7a2c-1111-2222-3333-444455556666';
const WEB_ACL = 'arn:aws:wafv2:us-east-1:123456789012:global/webacl/gsts/a1b2c3d4-5678-90ab-cdef-EXAMPLE11111';
const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:ops-alarms';
const API_CERTIFICATE = 'arn:aws:acm:eu-west-1:123456789012:certificate/0f8e7a2c-1111-2222-3333-444455556666';

describe('context parameters', () => {
  const read = (values: Record<string, unknown>) => readDeployContext((key) => values[key]);

  test('nothing given but the waiver of an alarm target: a synth still works, with defaults', () => {
    const waived = { noAlarmTarget: 'true' };
    expect(read(waived)).toEqual({
      noAlarmTarget: true,
      terminationProtection: false,
      tracing: false,
      logRetentionDays: 30,
      secretsRevision: 1,
      stackName: DEFAULT_STACK_NAME,
    });
    const props = serviceStackProps(read(waived), undefined);
    expect(props.identity).toEqual({ issuer: UNCONFIGURED_ISSUER, audience: 'game-session-token-service', jwksUrl: undefined });
    expect(props.domain).toBeUndefined();
  });

  test('every parameter reaches the stack properties', () => {
    const context = read({
      jwtIssuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc',
      jwtAudience: 'client-1,client-2',
      jwtJwksUrl: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc/.well-known/jwks.json',
      domainName: 'play.example.com',
      certificateArn: CERTIFICATE,
      alarmEmail: 'ops@example.com',
      alarmWebhookUrl: 'https://hooks.example.com/sns/ops',
      alarmTopicArn: TOPIC,
      webAclArn: WEB_ACL,
      apiDomainName: 'api.play.example.com',
      apiCertificateArn: API_CERTIFICATE,
      wafRateLimit: '3000',
      capacity: '{"admin":{"rate":50}}',
      terminationProtection: 'true',
      tracing: 'true',
      logRetentionDays: '90', // -c values arrive as strings
      secretsRevision: '2',
      stackName: 'Gsts-Prod',
      mcpAllowedOrigins: 'https://agent.example, http://localhost:5173',
    });
    expect(serviceStackProps(context, { region: 'eu-west-1' })).toEqual({
      env: { region: 'eu-west-1' },
      terminationProtection: true,
      tracing: true,
      identity: {
        issuer: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc',
        audience: 'client-1,client-2',
        jwksUrl: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc/.well-known/jwks.json',
      },
      domain: { domainName: 'play.example.com', certificateArn: CERTIFICATE },
      webAclArn: WEB_ACL,
      wafRateLimit: 3000,
      apiDomain: { domainName: 'api.play.example.com', certificateArn: API_CERTIFICATE },
      capacity: {
        ...DEFAULT_CAPACITY,
        routes: { ...DEFAULT_CAPACITY.routes, admin: { rate: 50, burst: DEFAULT_CAPACITY.routes.admin.burst } },
      },
      alarmTopicArn: TOPIC,
      alarmEmail: 'ops@example.com',
      alarmWebhookUrl: 'https://hooks.example.com/sns/ops',
      logRetention: RetentionDays.THREE_MONTHS,
      secretsRevision: 2,
      mcpAllowedOrigins: ['https://agent.example', 'http://localhost:5173'],
    });
    expect(context.stackName).toBe('Gsts-Prod');
  });

  test('mistakes fail the synth with a message naming the parameter', () => {
    expect(() => read({ jwtIssuer: 'not a url', noAlarmTarget: 'true' })).toThrow(/jwtIssuer/);
    expect(() => read({ domainName: 'play.example.com' })).toThrow(/domainName and certificateArn go together/);
    expect(() => read({ domainName: 'play.example.com', certificateArn: CERTIFICATE.replace('us-east-1', 'eu-west-1') })).toThrow(
      /certificateArn: must be an ACM certificate ARN in us-east-1/,
    );
    expect(() => read({ alarmEmail: 'ops' })).toThrow(/alarmEmail/);
    expect(() => read({ logRetentionDays: '31' })).toThrow(/logRetentionDays/);
    expect(() => read({ mcpAllowedOrigins: 'agent.example' })).toThrow(/mcpAllowedOrigins/);
    expect(() => read({ mcpAllowedOrigins: 'https://agent.example/path' })).toThrow(/mcpAllowedOrigins/);
    expect(() => read({ alarmEmail: 'ops@example.com', alarmWebhookUrl: 'http://hooks.example.com/x' })).toThrow(/alarmWebhookUrl/);
  });

  test('alarms need someone to notify: a target, or an explicit waiver', () => {
    expect(() => read({})).toThrow(/alarmEmail: alarms need someone to notify/);
    expect(() => read({ noAlarmTarget: 'false' })).toThrow(/alarms need someone to notify/);
    for (const target of [
      { alarmEmail: 'ops@example.com' },
      { alarmWebhookUrl: 'https://hooks.example.com/sns/ops' },
      { alarmTopicArn: TOPIC },
      { noAlarmTarget: 'true' },
    ]) {
      expect(() => read(target)).not.toThrow();
    }
  });

  test('an empty value counts as absent', () => {
    expect(read({ domainName: '', certificateArn: '', noAlarmTarget: 'true' }).domainName).toBeUndefined();
  });
});

describe('with a custom domain, a web ACL, an existing alarm topic and an alarm email', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthesize({
      domain: { domainName: 'play.example.com', certificateArn: CERTIFICATE },
      webAclArn: WEB_ACL,
      alarmTopicArn: TOPIC,
      alarmEmail: 'ops@example.com',
      alarmWebhookUrl: 'https://hooks.example.com/sns/ops',
      secretsRevision: 3,
      mcpAllowedOrigins: ['https://agent.example'],
    });
  });
  /** Each function's environment variables, by its routes-table name. */
  const environments = () =>
    [...s.stack.functions.functions.keys()].map((name) => {
      const fn = s.json.Resources[logicalId(s.stack, s.stack.functions.functions.get(name)!)]!;
      return [name, fn.Properties.Environment.Variables as Record<string, unknown>] as const;
    });

  test('the MCP browser-origin allow-list reaches the functions that read it', () => {
    for (const [name, variables] of environments()) {
      if (functionEnvVars(routes, name).includes('MCP_ALLOWED_ORIGINS'))
        expect(variables.MCP_ALLOWED_ORIGINS).toBe('https://agent.example');
      else expect(variables).not.toHaveProperty('MCP_ALLOWED_ORIGINS');
    }
    expect(environments().filter(([, variables]) => variables.MCP_ALLOWED_ORIGINS).length).toBeGreaterThan(0);
  });

  test('the distribution answers on the domain with TLS 1.2 or later, behind the web ACL', () => {
    s.template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        Aliases: ['play.example.com'],
        ViewerCertificate: { AcmCertificateArn: CERTIFICATE, MinimumProtocolVersion: 'TLSv1.2_2021', SslSupportMethod: 'sni-only' },
        WebACLId: WEB_ACL,
      }),
    });
  });

  test('a new secrets revision changes the distribution and every function (so secrets are resolved again)', () => {
    s.template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({ Comment: Match.stringLikeRegexp('secrets revision 3') }),
    });
    for (const [, fn] of resourcesOf(s.json, 'AWS::Lambda::Function')) {
      expect(fn.Properties.Description).toMatch(/\(secrets revision 3\)$/);
      expect(fn.Properties.Description.length).toBeLessThanOrEqual(256);
    }
  });

  test('functions build links on the custom domain', () => {
    for (const [name, variables] of environments()) {
      if (functionEnvVars(routes, name).includes('PUBLIC_BASE_URL')) expect(variables.PUBLIC_BASE_URL).toBe('https://play.example.com');
      else expect(variables).not.toHaveProperty('PUBLIC_BASE_URL');
    }
    expect(environments().filter(([, variables]) => variables.PUBLIC_BASE_URL).length).toBeGreaterThan(0);
    expect(s.json.Outputs?.Url?.Value).toBe('https://play.example.com');
  });

  test('alarms go to the existing topic; the email subscribes to it; no topic or key of its own', () => {
    expect(resourcesOf(s.json, 'AWS::SNS::Topic')).toHaveLength(0);
    expect(resourcesOf(s.json, 'AWS::KMS::Key')).toHaveLength(0);
    for (const [, alarm] of resourcesOf(s.json, 'AWS::CloudWatch::Alarm')) expect(alarm.Properties.AlarmActions).toEqual([TOPIC]);
    s.template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com', TopicArn: TOPIC });
    s.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'https',
      Endpoint: 'https://hooks.example.com/sns/ops',
      TopicArn: TOPIC,
    });
  });

  test('cdk-nag is clean without the WAF and TLS acknowledgements', () => {
    const ids = nagAcknowledgements(s.stack).map((a) => a.id);
    expect(ids).not.toContain('AwsSolutions-CFR2');
    expect(ids).not.toContain('AwsSolutions-CFR4');
    expect(new AwsSolutionsChecks().validateScope(s.app).violations).toEqual([]);
  });
});

describe('without acknowledgements', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthesize({ acknowledgeNagFindings: false, identity: { issuer: UNCONFIGURED_ISSUER, audience: 'x' } });
  });

  test('the findings are exactly the acknowledged ones: none missing, none stale', () => {
    const findings = new AwsSolutionsChecks()
      .validateScope(s.app)
      .violations.flatMap((v) => v.violatingResources.map((r) => ({ id: v.ruleName, path: r.constructPath ?? '' })));
    const acks = nagAcknowledgements(s.stack);
    const covers = (ack: (typeof acks)[number], finding: (typeof findings)[number]) =>
      ack.id === finding.id && (finding.path === ack.scope.node.path || finding.path.startsWith(`${ack.scope.node.path}/`));
    expect(findings.filter((f) => !acks.some((a) => covers(a, f)))).toEqual([]);
    expect(acks.filter((a) => !findings.some((f) => covers(a, f))).map((a) => `${a.id} on ${a.scope.node.path}`)).toEqual([]);
  });

  test('a synth without identity provider warns that admin operations will answer 401', () => {
    Annotations.fromStack(s.stack).hasWarning('*', Match.stringLikeRegexp('No identity provider configured'));
  });
});

describe('CDK feature flags and termination protection', () => {
  test('cdk.json sets every feature flag this aws-cdk-lib recommends, at its recommended value', () => {
    // An upgrade that recommends new flags fails here: add them after checking the synth diff
    // (docs/deploy.md, "CDK feature flags").
    const recommended = JSON.parse(
      readFileSync(new URL('../../node_modules/aws-cdk-lib/recommended-feature-flags.json', import.meta.url), 'utf8'),
    ) as Record<string, unknown>;
    for (const [flag, value] of Object.entries(recommended)) expect([flag, CDK_JSON_CONTEXT[flag]]).toEqual([flag, value]);
  });

  test('terminationProtection reaches every stack of the deployment; off by default', () => {
    const deploy = (values: Record<string, unknown>) => {
      const app = cdkApp({ 'aws:cdk:bundling-stacks': [] });
      const stacks = buildDeployment(
        app,
        readDeployContext((key) => ({ noAlarmTarget: 'true', wafRateLimit: '2000', distributionId: 'E2QWRUHAPOMQZL', ...values })[key]),
        { account: '123456789012', region: 'eu-west-1' },
        { workerEntry },
      );
      const assembly = app.synth();
      return [stacks.service, stacks.waf!, stacks.edgeAlarms!].map(
        (stack) => assembly.getStackByName(stack.stackName).terminationProtection,
      );
    };
    expect(deploy({ terminationProtection: 'true' })).toEqual([true, true, true]);
    expect(deploy({})).toEqual([false, false, false]);
  });

  test('X-Ray active tracing on every function with tracing=true; PassThrough by default (cost)', () => {
    const modes = (values: Record<string, unknown>) => {
      const app = cdkApp({ 'aws:cdk:bundling-stacks': [] });
      const { service } = buildDeployment(
        app,
        readDeployContext((key) => ({ noAlarmTarget: 'true', ...values })[key]),
        { account: '123456789012', region: 'us-east-1' },
        { workerEntry },
      );
      const fns = Template.fromStack(service).findResources('AWS::Lambda::Function');
      return new Set(
        Object.values(fns).map((f) => (f as { Properties: { TracingConfig?: { Mode: string } } }).Properties.TracingConfig?.Mode),
      );
    };
    expect([...modes({ tracing: 'true' })]).toEqual(['Active']);
    expect([...modes({})]).toEqual(['PassThrough']);
  });
});
