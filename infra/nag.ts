/**
 * cdk-nag (AWS Solutions rules) on every synth: an unacknowledged finding fails `cdk synth`, so each
 * exception to a rule is acknowledged here, on the narrowest construct it applies to, with its reason.
 */
import { Token, Validations, type App, type CfnElement } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import type { ServiceStack } from './stack.js';

/** Run the AWS Solutions checks on everything in the app at synth. */
export function addNagChecks(app: App): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
}

/** One acknowledged finding: the rule (or `rule[finding]`), where, and why. */
export interface NagAcknowledgement {
  readonly id: string;
  readonly scope: IConstruct;
  readonly reason: string;
}

/** The stack's exceptions to the AWS Solutions rules, each with its reason. */
export function nagAcknowledgements(stack: ServiceStack): NagAcknowledgement[] {
  return [
    ...publicEndpoint(stack),
    ...deployTimeSecrets(stack),
    ...tracingPolicies(stack),
    ...workers(stack),
    ...edgeOptionsLeftOut(stack),
    ...consoleSite(stack),
  ];
}

/** How the API and the distribution are exposed: decisions of the design, true of every deploy. */
function publicEndpoint(stack: ServiceStack): NagAcknowledgement[] {
  const distribution = stack.edge.distribution;
  return [
    {
      id: 'AwsSolutions-APIG4',
      scope: stack.api.api,
      reason:
        'Authorization is per operation and happens in the function, as the routes table declares it: API key (SHA-256 lookup, revocation effective at once), ' +
        'OIDC bearer JWT (aws-jwt-verify) or none where the specification says so (validate, consume, play pages). Only CloudFront reaches the API: ' +
        'every function refuses requests without the origin-verify secret header.',
    },
    {
      id: 'AwsSolutions-CFR1',
      scope: distribution,
      reason: 'Partners and their players are worldwide; the service has no legal or licensing reason to refuse any country.',
    },
    {
      id: 'AwsSolutions-CFR3',
      scope: distribution,
      reason:
        'Every request that passes the edge is logged twice already: the API Gateway access log (JSON, with source IP) and the function request line with its request id; ' +
        'requests the edge itself refuses (unknown path/action) reach no data. Standard CloudFront logs would need an ACL-enabled S3 bucket for no extra insight.',
    },
  ];
}

/** Secrets without a rotation Lambda: their values are resolved at deploy time, read once per container, or must never change. */
function deployTimeSecrets(stack: ServiceStack): NagAcknowledgement[] {
  return [
    {
      id: 'AwsSolutions-SMG4',
      scope: stack.originSecret,
      reason:
        'CloudFront receives the value at deploy time (an origin custom header), so a rotation Lambda alone could not apply it. ' +
        'Rotate by putting a new value and redeploying (docs/deploy.md, "Rotating the secrets"); the functions accept the previous value while the distribution updates.',
    },
    {
      id: 'AwsSolutions-SMG4',
      scope: stack.playCookieSecret,
      reason:
        'The play-page function reads the value once per container (at its first request), so a rotation Lambda alone would leave warm ' +
        'containers on the old key. Rotate by putting a new value and redeploying (docs/deploy.md, "Rotating the secrets"), which replaces the containers; ' +
        'only play cookies signed with the old key stop working.',
    },
    {
      id: 'AwsSolutions-SMG4',
      scope: stack.sessionIdKey,
      reason:
        'Rotating this key would change the session-id permutation, whose new ids could repeat ids already issued: it must never rotate ' +
        '(shared/platform/id-permutation.ts). Session ids stay unique even if it leaked; they would only become predictable.',
    },
    {
      id: 'AwsSolutions-SMG4',
      scope: stack.webhookSecretKey,
      reason:
        'The endpoints’ signing secrets are sealed under this key (shared/webhooks/secret-sealer.ts): a rotation Lambda alone would leave ' +
        'them sealed under the old key, unreadable. Rotating needs a re-sealing of every endpoint, which does not exist yet.',
    },
  ];
}

/**
 * X-Ray does not support resource-level permissions: PutTraceSegments and PutTelemetryRecords need
 * Resource "*". Every other statement of the functions' roles names its resources.
 */
function tracingPolicies(stack: ServiceStack): NagAcknowledgement[] {
  return [...stack.functions.functions.values()].map((fn) => ({
    id: 'AwsSolutions-IAM5[Resource::*]',
    scope: fn.role!.node.findChild('DefaultPolicy'),
    reason:
      'Only the X-Ray tracing statement (xray:PutTraceSegments, xray:PutTelemetryRecords) has Resource "*": X-Ray has no resource-level permissions.',
  }));
}

/**
 * The workers (`workers.ts`): their roles' X-Ray statement, and reading DynamoDB streams, whose
 * ListStreams has no resource-level permission either; the stream triggers' dead-letter queue.
 */
function workers(stack: ServiceStack): NagAcknowledgement[] {
  const roles = [...stack.workers.functions].map(([name, fn]) => {
    const streams = stack.workers.triggers.get(name) === 'stream';
    return {
      id: 'AwsSolutions-IAM5[Resource::*]',
      scope: fn.role!.node.findChild('DefaultPolicy'),
      reason: streams
        ? 'Resource "*" only for X-Ray (xray:PutTraceSegments, xray:PutTelemetryRecords) and dynamodb:ListStreams, which the stream event source ' +
          'needs to find the streams of its tables: neither has resource-level permissions. Reading a stream (DescribeStream, GetShardIterator, GetRecords) names the stream ARNs.'
        : 'Only the X-Ray tracing statement (xray:PutTraceSegments, xray:PutTelemetryRecords) has Resource "*": X-Ray has no resource-level permissions.',
    };
  });
  return [
    ...roles,
    {
      id: 'AwsSolutions-SQS3',
      scope: stack.queues.streamFailures,
      reason:
        'This queue is itself a dead-letter queue: the stream event source mappings record here each batch they gave up on (onFailure). ' +
        'Nothing consumes it but on-call (docs/runbook.md#webhook-dead-letters), so a dead-letter queue of its own would never receive anything.',
    },
  ];
}

/** Findings that exist only while the deployer leaves an option out (web ACL, custom domain); each says how to add it. */
function edgeOptionsLeftOut(stack: ServiceStack): NagAcknowledgement[] {
  const distribution = stack.edge.distribution;
  const acks: NagAcknowledgement[] = [];
  if (!stack.edge.hasWebAcl) {
    acks.push({
      id: 'AwsSolutions-CFR2',
      scope: distribution,
      reason:
        'No web ACL was given (context webAclArn or wafRateLimit): abuse is bounded by per-key rate limits, per-route throttles of the capacity plan ' +
        'and single-use tokens. Pass wafRateLimit (a per-address rule on anonymous requests) or webAclArn (a CLOUDFRONT-scope web ACL) to attach one.',
    });
  }
  if (!stack.edge.hasCustomDomain) {
    acks.push({
      id: 'AwsSolutions-CFR4',
      scope: distribution,
      reason:
        'Without a custom domain the distribution uses the default *.cloudfront.net certificate, whose TLS policy CloudFront fixes. ' +
        'With domainName and certificateArn the stack sets TLSv1.2_2021 as the minimum.',
    });
  }
  return acks;
}

/**
 * The admin console (when deployed): its bucket, and the function CDK's BucketDeployment brings to
 * copy the build into it, whose role and runtime CDK itself defines.
 */
function consoleSite(stack: ServiceStack): NagAcknowledgement[] {
  const site = stack.edge.console;
  const uploader = stack.node.children.find((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'));
  if (!site || !uploader) return [];
  const role = uploader.node.findChild('ServiceRole');
  const policy = role.node.findChild('DefaultPolicy');
  const iam5 = (finding: string, reason: string) => ({ id: `AwsSolutions-IAM5[${finding}]`, scope: policy, reason });
  const copyReason =
    'CDK’s BucketDeployment grants its copy function read on the CDK asset bucket and write on the console bucket with wildcards: ' +
    'it syncs a whole folder of built files whose names (content hashes) are known only at deploy.';
  return [
    {
      id: 'AwsSolutions-S1',
      scope: site.bucket,
      reason:
        'The bucket holds only the public build of the console and is read by CloudFront alone (origin access control); ' +
        'viewer requests are the distribution’s, and changes to the bucket are deploys, recorded by CloudFormation and CloudTrail.',
    },
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      scope: role,
      reason:
        'CDK’s BucketDeployment function writes its own logs with the AWS managed basic execution policy; it runs only during deploys.',
    },
    ...['Action::s3:GetBucket*', 'Action::s3:GetObject*', 'Action::s3:List*', 'Action::s3:Abort*', 'Action::s3:DeleteObject*'].map((f) =>
      iam5(f, copyReason),
    ),
    iam5(`Resource::${assetBucketArn(stack)}/*`, copyReason),
    iam5(`Resource::<${stack.getLogicalId(site.bucket.node.defaultChild as CfnElement)}.Arn>/*`, copyReason),
    {
      id: 'AwsSolutions-L1',
      scope: uploader,
      reason:
        'The runtime of CDK’s BucketDeployment function is chosen by aws-cdk-lib and moves with its upgrades; it runs only during deploys.',
    },
  ];
}

/** The CDK bootstrap asset bucket's ARN as cdk-nag prints it (placeholders on an environment-agnostic stack). */
function assetBucketArn(stack: ServiceStack): string {
  const known = (value: string, placeholder: string) => (Token.isUnresolved(value) ? placeholder : value);
  const partition = Token.isUnresolved(stack.region) ? '<AWS::Partition>' : stack.partition;
  return `arn:${partition}:s3:::cdk-hnb659fds-assets-${known(stack.account, '<AWS::AccountId>')}-${known(stack.region, '<AWS::Region>')}`;
}

/** Record the stack's acknowledgements on its constructs (the stack calls this once, at the end). */
export function acknowledgeFindings(stack: ServiceStack): void {
  for (const { id, scope, reason } of nagAcknowledgements(stack)) Validations.of(scope).acknowledge({ id, reason });
}
