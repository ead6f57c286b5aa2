/**
 * The stacks of one deployment: the service stack and, when the service lives outside us-east-1,
 * the stacks of what CloudFront keeps in us-east-1 alone: the web ACL (`wafRateLimit`) and the
 * CloudFront 5xx alarm (`distributionId`, once the service stack exists). `infra/app.ts` builds it;
 * the infra tests build it the same way.
 */
import { Annotations, Token, type App, type Environment } from 'aws-cdk-lib';
import { serviceStackProps, type DeployContext } from './config.js';
import { hasSubscriber } from './alarm-topic.js';
import { EdgeAlarmsStack } from './edge-alarms.js';
import { CLOUDFRONT_REGION } from './edge.js';
import type { ServiceStackProps } from './stack-props.js';
import { ServiceStack } from './stack.js';
import { EdgeWafStack } from './waf.js';

export interface Deployment {
  readonly service: ServiceStack;
  /** The separate web ACL stack, when the service's region is not us-east-1. */
  readonly waf?: EdgeWafStack;
  /** The separate CloudFront alarm stack, when the service's region is not us-east-1 and `distributionId` is given. */
  readonly edgeAlarms?: EdgeAlarmsStack;
}

/** Build the deployment's stacks into `app`; `code` says where a worker's code is when not in `functions/` (tests). */
export function buildDeployment(
  app: App,
  context: DeployContext,
  env: ServiceStackProps['env'],
  code: Pick<ServiceStackProps, 'workerEntry'> = {},
): Deployment {
  const props = { ...serviceStackProps(context, env), ...code };
  const region = env?.region;
  // In us-east-1 the service stack holds the web ACL and the edge alarm. With the region unknown (an
  // environment-agnostic synth) it holds the web ACL, and no stack has the edge alarm: the alarm only
  // works in us-east-1 and nothing says the stack goes there (`ServiceMonitoring.watchEdge`).
  const elsewhere = region !== undefined && !Token.isUnresolved(region) && region !== CLOUDFRONT_REGION;
  const usEast1 = { account: env?.account, region: CLOUDFRONT_REGION };
  if (!elsewhere && context.wafRateLimit !== undefined && context.webAclArn) {
    throw new Error('a distribution has one web ACL: give webAclArn or wafRateLimit, not both');
  }
  const waf =
    elsewhere && context.wafRateLimit !== undefined
      ? new EdgeWafStack(app, `${context.stackName}-EdgeWaf`, {
          env: usEast1,
          limit: context.wafRateLimit,
          terminationProtection: context.terminationProtection,
        })
      : undefined;
  const service = new ServiceStack(app, context.stackName, { ...props, wafRateLimit: waf ? undefined : props.wafRateLimit });
  if (waf && !context.webAclArn) {
    Annotations.of(service).addWarningV2(
      'gsts:web-acl-pending',
      `wafRateLimit outside ${CLOUDFRONT_REGION}: deploy ${waf.stackName} first, then this stack with -c webAclArn=<its WebAclArn output> ` +
        '(docs/deploy.md, "WAF"). Until then the distribution has no web ACL.',
    );
  }
  const edgeAlarms = elsewhere ? edgeAlarmStack(app, context, props, service, usEast1) : undefined;
  return { service, waf, edgeAlarms };
}

/**
 * The us-east-1 stack of the CloudFront 5xx alarm, once the distribution's id is known; until then a
 * warning says how to get it. Its topic has the service's targets; an existing topic (`alarmTopicArn`)
 * cannot be one (an alarm notifies only topics of its own region). `usEast1`: the deployment's account
 * in CloudFront's region, as the web ACL stack's.
 */
function edgeAlarmStack(
  app: App,
  context: DeployContext,
  props: ServiceStackProps,
  service: ServiceStack,
  usEast1: Environment,
): EdgeAlarmsStack | undefined {
  const name = `${context.stackName}-EdgeAlarms`;
  if (!context.distributionId) {
    Annotations.of(service).addWarningV2(
      'gsts:edge-alarm-pending',
      `CloudFront's metrics exist only in ${CLOUDFRONT_REGION}: after deploying this stack, deploy ${name} with ` +
        '-c distributionId=<its DistributionId output> (docs/deploy.md, "The CloudFront alarm outside us-east-1"). Until then no alarm watches the edge.',
    );
    return undefined;
  }
  const stack = new EdgeAlarmsStack(app, name, {
    env: usEast1,
    distributionId: context.distributionId,
    thresholds: props.alarmThresholds,
    alarmEmail: props.alarmEmail,
    alarmWebhookUrl: props.alarmWebhookUrl,
    alarmSlack: props.alarmSlack,
    terminationProtection: context.terminationProtection,
  });
  if (!hasSubscriber(props) && !context.noAlarmTarget) {
    Annotations.of(stack).addWarningV2(
      'gsts:edge-alarm-no-target',
      `alarmTopicArn is in the service's region; the edge alarm's topic in ${CLOUDFRONT_REGION} has no subscriber: ` +
        'give alarmEmail, alarmWebhookUrl or the Slack channel too, or subscribe to its AlarmTopicArn output.',
    );
  }
  return stack;
}
