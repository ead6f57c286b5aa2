/**
 * Where alarms go: an SNS topic (the stack's own or an existing one) and the people behind it — an
 * e-mail address, an HTTPS endpoint, a Slack channel through AWS Chatbot (Amazon Q Developer in chat
 * applications). The service stack and the us-east-1 edge alarm stack (`edge-alarms.ts`) build the
 * same destination, so one set of context parameters reaches both.
 */
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { SlackChannelConfiguration } from 'aws-cdk-lib/aws-chatbot';
import { Effect, ManagedPolicy, PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { SubscriptionProtocol, Topic, type ITopic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription, UrlSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';

/** A Slack channel that AWS Chatbot posts the alarms to (the workspace authorized once in its console). */
export interface SlackChannel {
  /** The workspace id AWS Chatbot's console shows after the authorization (e.g. `T07EA123LEP`). */
  readonly workspaceId: string;
  /** The channel id (the end of the channel's link, e.g. `C07EZ1ABC23`). */
  readonly channelId: string;
}

/** Who is notified; each optional (the context requires one of them or an explicit waiver). */
export interface AlarmTargets {
  /** Subscribe this address to the alarm topic. */
  readonly alarmEmail?: string;
  /** Subscribe this HTTPS endpoint; it must confirm the subscription (visit SNS's `SubscribeURL`). */
  readonly alarmWebhookUrl?: string;
  /** Post the alarms to this Slack channel through AWS Chatbot. */
  readonly alarmSlack?: SlackChannel;
}

/** Whether the targets reach anyone (an existing topic's own subscribers are not known at synth). */
export function hasSubscriber(targets: AlarmTargets): boolean {
  return Boolean(targets.alarmEmail || targets.alarmWebhookUrl || targets.alarmSlack);
}

/** The topic alarms notify; `own` is set only when the stack created it (with its key). */
export interface AlarmDestination {
  readonly topic: ITopic;
  readonly own?: { readonly topic: Topic; readonly key: Key };
  readonly slack?: SlackChannelConfiguration;
}

/**
 * The alarm destination of `stack`: an existing topic (`existingTopicArn`) or a topic of its own,
 * with the subscriptions the targets ask for. The Chatbot configuration is named after the stack
 * (a configuration's name is unique in the account).
 */
export function alarmDestination(stack: Stack, targets: AlarmTargets, existingTopicArn?: string): AlarmDestination {
  let topic: ITopic;
  let own: AlarmDestination['own'];
  if (existingTopicArn) {
    topic = Topic.fromTopicArn(stack, 'AlarmTopic', existingTopicArn);
  } else {
    own = alarmTopic(stack);
    topic = own.topic;
  }
  if (targets.alarmEmail) topic.addSubscription(new EmailSubscription(targets.alarmEmail));
  if (targets.alarmWebhookUrl) {
    topic.addSubscription(new UrlSubscription(targets.alarmWebhookUrl, { protocol: SubscriptionProtocol.HTTPS }));
  }
  const slack = targets.alarmSlack ? slackChannel(stack, targets.alarmSlack, topic) : undefined;
  return { topic, own, slack };
}

/**
 * AWS Chatbot's configuration of the channel, subscribed to the topic (Chatbot confirms its own
 * subscription, which a Slack incoming webhook cannot). Its role has no permissions and the
 * guardrail is read-only CloudWatch: the channel receives alarms, nobody in it can change anything
 * (CDK's default guardrail would be AdministratorAccess).
 */
function slackChannel(stack: Stack, channel: SlackChannel, topic: ITopic): SlackChannelConfiguration {
  return new SlackChannelConfiguration(stack, 'AlarmSlackChannel', {
    slackChannelConfigurationName: `${stack.stackName}-alarms`.slice(0, 128),
    slackWorkspaceId: channel.workspaceId,
    slackChannelId: channel.channelId,
    notificationTopics: [topic],
    guardrailPolicies: [ManagedPolicy.fromAwsManagedPolicyName('CloudWatchReadOnlyAccess')],
  });
}

/**
 * A topic of the stack. Encrypted with a customer-managed key because CloudWatch cannot publish to
 * a topic encrypted with the AWS-managed SNS key; the key lets CloudWatch use it, nothing else.
 */
function alarmTopic(scope: Construct): { topic: Topic; key: Key } {
  const key = new Key(scope, 'AlarmTopicKey', {
    description: 'Encrypts the alarm topic of the Game Session Token Service',
    enableKeyRotation: true,
    pendingWindow: Duration.days(7),
    removalPolicy: RemovalPolicy.DESTROY,
  });
  key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
  const topic = new Topic(scope, 'AlarmTopic', { displayName: 'Game Session Token Service alarms', masterKey: key, enforceSSL: true });
  // A topic policy replaces SNS's default one, so the SSL-only deny alone would leave CloudWatch
  // unable to publish: alarms would change state and notify nobody. Allow it, for this account's
  // alarms in this region only (no other account's alarm can use the topic).
  const stack = Stack.of(scope);
  topic.addToResourcePolicy(
    new PolicyStatement({
      sid: 'AllowCloudWatchAlarms',
      effect: Effect.ALLOW,
      principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: {
        StringEquals: { 'aws:SourceAccount': stack.account },
        ArnLike: { 'aws:SourceArn': `arn:${stack.partition}:cloudwatch:${stack.region}:${stack.account}:alarm:*` },
      },
    }),
  );
  return { topic, key };
}
