/**
 * The admin console in AWS: a private bucket (public access blocked, TLS only) behind
 * the service's distribution through origin access control; `/console/*` behaviours with the
 * caching rules (hashed assets a year, page and config never) and the strict CSP; `config.json`
 * written at deploy from the context. Without its client id there is no console at all.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nagAcknowledgements } from '../../infra/nag.js';
import { readDeployContext, serviceStackProps } from '../../infra/config.js';
import { resourcesOf, synthesize, TEST_IDENTITY, type Synthesized } from './fixture.js';

const SETTINGS = {
  issuer: 'https://login.example.com/tenant/',
  clientId: 'console-client',
  audience: 'gsts-admins',
  connectOrigins: ['https://auth.example.net'],
};
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self' https://login.example.com https://auth.example.net; " +
  "img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action https://login.example.com https://auth.example.net";

let s: Synthesized;
beforeAll(() => {
  s = synthesize({ console: SETTINGS });
});

const distribution = () => resourcesOf(s.json, 'AWS::CloudFront::Distribution')[0]![1].Properties.DistributionConfig;
const behavior = (path: string) => distribution().CacheBehaviors.find((b: { PathPattern: string }) => b.PathPattern === path);
const consoleIds = () => {
  const site = s.stack.edge.console!;
  const id = (c: { node: { defaultChild?: unknown } }) => s.stack.getLogicalId(c.node.defaultChild as never);
  return { bucket: id(site.bucket), headers: id(site.headers), cache: id(site.assetsCache), fn: id(site.indexFunction) };
};

describe('the console bucket', () => {
  test('is private: every public access blocked, owner-enforced, encrypted', () => {
    expect(s.json.Resources[consoleIds().bucket]!.Properties).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
    });
  });

  test('its policy refuses plain HTTP and lets only this distribution read (origin access control)', () => {
    const policies = resourcesOf(s.json, 'AWS::S3::BucketPolicy').filter(([, p]) => p.Properties.Bucket.Ref === consoleIds().bucket);
    expect(policies).toHaveLength(1);
    const statements = policies[0]![1].Properties.PolicyDocument.Statement as Record<string, any>[];
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Principal: { AWS: '*' }, Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
    const reads = statements.filter((st) => st.Effect === 'Allow' && st.Principal?.Service === 'cloudfront.amazonaws.com');
    expect(reads).toHaveLength(1);
    expect(reads[0]!.Action).toBe('s3:GetObject');
    expect(JSON.stringify(reads[0]!.Condition)).toContain('AWS:SourceArn');
    // Nobody else is allowed anything (the auto-delete custom resource aside, which may only list and delete).
    for (const st of statements.filter((x) => x.Effect === 'Allow' && x !== reads[0])) {
      expect(asArray(st.Action).every((a: string) => /^s3:(DeleteObject\*|GetBucket\*|List\*|PutBucketPolicy)$/.test(a))).toBe(true);
    }
  });

  test('the distribution reaches it with an origin access control (SigV4), not a public website endpoint', () => {
    const [, oac] = resourcesOf(s.json, 'AWS::CloudFront::OriginAccessControl')[0]!;
    expect(oac.Properties.OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    });
    const origin = distribution().Origins.find((o: any) => o.S3OriginConfig);
    expect(origin.OriginAccessControlId).toBeDefined();
    expect(origin.S3OriginConfig).toEqual({ OriginAccessIdentity: '' });
    expect(JSON.stringify(origin.DomainName)).toContain('RegionalDomainName');
  });
});

describe('the console behaviours', () => {
  test('/console/assets/* is cached a year; /console/* and /console are never cached and pass the index function', () => {
    const assets = behavior('/console/assets/*');
    expect(assets).toMatchObject({ ViewerProtocolPolicy: 'redirect-to-https', AllowedMethods: ['GET', 'HEAD'], Compress: true });
    expect(assets.CachePolicyId).toEqual({ Ref: consoleIds().cache });
    const cache = s.json.Resources[consoleIds().cache]!.Properties.CachePolicyConfig;
    expect(cache).toMatchObject({ MinTTL: 31_536_000, DefaultTTL: 31_536_000, MaxTTL: 31_536_000 });
    for (const path of ['/console/*', '/console']) {
      expect(behavior(path)).toMatchObject({
        CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad', // Managed-CachingDisabled
        AllowedMethods: ['GET', 'HEAD'],
        FunctionAssociations: [{ EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [consoleIds().fn, 'FunctionARN'] } }],
      });
    }
    // The assets' behaviour comes first: CloudFront takes the first pattern that matches.
    expect(distribution().CacheBehaviors.map((b: { PathPattern: string }) => b.PathPattern)).toEqual([
      '/console/assets/*',
      '/console/*',
      '/console',
    ]);
  });

  test('every console answer carries the strict CSP, HSTS, no framing, nosniff and no referrer', () => {
    for (const path of ['/console/assets/*', '/console/*', '/console'])
      expect(behavior(path).ResponseHeadersPolicyId).toEqual({ Ref: consoleIds().headers });
    const config = s.json.Resources[consoleIds().headers]!.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    expect(config).toEqual({
      ContentSecurityPolicy: { ContentSecurityPolicy: CSP, Override: true },
      StrictTransportSecurity: { AccessControlMaxAgeSec: 63_072_000, IncludeSubdomains: true, Override: true },
      ContentTypeOptions: { Override: true },
      FrameOptions: { FrameOption: 'DENY', Override: true },
      ReferrerPolicy: { ReferrerPolicy: 'no-referrer', Override: true },
    });
  });

  test('the index function redirects /console and maps /console/ to index.html', () => {
    const code = s.json.Resources[consoleIds().fn]!.Properties.FunctionCode as string;
    const handler = new Function(`${code}; return handler;`)() as (e: unknown) => any;
    expect(handler({ request: { uri: '/console' } })).toMatchObject({ statusCode: 301, headers: { location: { value: '/console/' } } });
    expect(handler({ request: { uri: '/console/' } }).uri).toBe('/console/index.html');
    expect(handler({ request: { uri: '/console/config.json' } }).uri).toBe('/console/config.json');
  });
});

describe('the upload', () => {
  const deployments = () => resourcesOf(s.json, 'Custom::CDKBucketDeployment').map(([, r]) => r.Properties);

  test('assets with an immutable Cache-Control, then the page and config.json with no-cache, under console/', () => {
    const [assets, page] = [...deployments()].sort((a) => (JSON.stringify(a.Include ?? '').includes('assets/*') ? -1 : 1));
    expect(assets).toMatchObject({ DestinationBucketKeyPrefix: 'console/', Prune: false, Exclude: ['*'], Include: ['assets/*'] });
    expect(assets!.SystemMetadata).toEqual({ 'cache-control': 'public, max-age=31536000, immutable' });
    expect(page).toMatchObject({ DestinationBucketKeyPrefix: 'console/', Prune: false, Exclude: ['assets/*'] });
    expect(page!.SystemMetadata).toEqual({ 'cache-control': 'no-cache' });
    // config.json is the page deployment's second source: a staged asset holding the context's values.
    const configAsset = String(page!.SourceObjectKeys[1]).replace(/\.zip$/, '');
    const config = JSON.parse(readFileSync(join(s.app.outdir, `asset.${configAsset}`, 'config.json'), 'utf8'));
    expect(config).toEqual({
      issuer: SETTINGS.issuer,
      client_id: SETTINGS.clientId,
      audience: SETTINGS.audience,
      api_base: '/api/org-api-keys',
    });
  });

  test('cdk-nag finds nothing unacknowledged with the console', () => {
    const report = new AwsSolutionsChecks().validateScope(s.app);
    expect(report.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`)).toEqual([]);
  });

  test('the console’s acknowledgements each match a finding (none stale), on a stack with and without an environment', () => {
    for (const env of [undefined, { account: '123456789012', region: 'eu-west-1' }]) {
      const bare = synthesize({ console: SETTINGS, acknowledgeNagFindings: false, env });
      const findings = new AwsSolutionsChecks()
        .validateScope(bare.app)
        .violations.flatMap((v) => v.violatingResources.map((r) => ({ id: v.ruleName, path: r.constructPath ?? '' })));
      const acks = nagAcknowledgements(bare.stack);
      const covers = (ack: (typeof acks)[number], finding: (typeof findings)[number]) =>
        ack.id === finding.id && (finding.path === ack.scope.node.path || finding.path.startsWith(`${ack.scope.node.path}/`));
      expect(findings.filter((f) => !acks.some((a) => covers(a, f)))).toEqual([]);
      expect(acks.filter((a) => !findings.some((f) => covers(a, f))).map((a) => `${a.id} on ${a.scope.node.path}`)).toEqual([]);
    }
  });
});

describe('the context', () => {
  test('consoleClientId turns the console on; issuer and audience default to the JWT settings', () => {
    const context = readDeployContext(
      (key) => ({ noAlarmTarget: 'true', jwtIssuer: TEST_IDENTITY.issuer, jwtAudience: 'a1, a2', consoleClientId: 'c1' })[key],
    );
    expect(serviceStackProps(context, undefined).console).toEqual({
      issuer: TEST_IDENTITY.issuer,
      clientId: 'c1',
      audience: 'a1',
      connectOrigins: undefined,
    });
    const without = readDeployContext((key) => ({ noAlarmTarget: 'true', jwtIssuer: TEST_IDENTITY.issuer })[key]);
    expect(serviceStackProps(without, undefined).console).toBeUndefined();
  });

  test('a console without any issuer, or a connect origin that is not https, fails the synth', () => {
    expect(() => readDeployContext((key) => ({ noAlarmTarget: 'true', consoleClientId: 'c1' })[key])).toThrow(/consoleIssuer/);
    const badOrigin = {
      noAlarmTarget: 'true',
      jwtIssuer: TEST_IDENTITY.issuer,
      consoleClientId: 'c1',
      consoleConnectOrigins: 'http://x.example',
    };
    expect(() => readDeployContext((key) => badOrigin[key as keyof typeof badOrigin])).toThrow(/consoleConnectOrigins/);
  });

  test('without it the distribution has no console behaviour and no bucket', () => {
    const plain = synthesize();
    expect(plain.stack.edge.console).toBeUndefined();
    expect(resourcesOf(plain.json, 'AWS::S3::Bucket')).toHaveLength(0);
    plain.template.resourceCountIs('AWS::CloudFront::OriginAccessControl', 0);
  });
});

function asArray<T>(value: T | T[]): T[] {
  return Array.isArray(value) ? value : [value];
}
