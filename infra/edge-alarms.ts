/**
 * The CloudFront 5xx alarm of a service stack outside us-east-1. CloudFront's metrics exist only in
 * us-east-1, and an alarm reads its own region's metrics and notifies only a topic of its own region,
 * so this stack in us-east-1 holds the alarm and a topic of its own with the same targets as the
 * service's (e-mail, HTTPS endpoint, Slack through AWS Chatbot). Deployed after the service stack:
 * it names the distribution by id (`-c distributionId=<the service stack's DistributionId output>`).
 */
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Construct } from 'constructs';
import { DEFAULT_THRESHOLDS, type AlarmThresholds } from './alarm-thresholds.js';
import { alarmDestination, type AlarmDestination, type AlarmTargets } from './alarm-topic.js';
import { edge5xxRateSpec, pagingAlarm } from './paging-alarm.js';

export interface EdgeAlarmsStackProps extends StackProps, AlarmTargets {
  /** The service's distribution (its stack's `DistributionId` output). */
  readonly distributionId: string;
  readonly thresholds?: Partial<AlarmThresholds>;
}

/** The edge alarm, its topic and the topic's subscriptions, in us-east-1. */
export class EdgeAlarmsStack extends Stack {
  readonly destination: AlarmDestination;

  constructor(scope: Construct, id: string, props: EdgeAlarmsStackProps) {
    super(scope, id, { description: 'Game Session Token Service: the CloudFront 5xx alarm (us-east-1)', ...props });
    this.destination = alarmDestination(this, props);
    const thresholds = { ...DEFAULT_THRESHOLDS, ...props.thresholds };
    pagingAlarm(this, 'Edge5xxRate', edge5xxRateSpec(props.distributionId, thresholds), new SnsAction(this.destination.topic));
    new CfnOutput(this, 'AlarmTopicArn', {
      description: 'SNS topic the edge alarm notifies (us-east-1)',
      value: this.destination.topic.topicArn,
    });
  }
}
