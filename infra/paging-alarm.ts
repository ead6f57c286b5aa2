/**
 * The one shape of every alarm that pages: several datapoints (never one event), missing data not
 * breaching, its runbook entry at the end of its description, and a notification on alarm and on
 * recovery. The service stack's monitoring and the us-east-1 edge alarm stack both build theirs here.
 */
import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import type { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Construct } from 'constructs';
import type { AlarmThresholds, RunbookEntry } from './alarm-thresholds.js';

/** How many of how many periods must breach. */
export interface Datapoints {
  readonly of: number;
  readonly breaching: number;
}

/** What an alarm watches and when it pages. */
export interface PagingAlarmSpec {
  readonly metric: IMetric;
  readonly description: string;
  readonly threshold: number;
  readonly datapoints: Datapoints;
  readonly runbook: RunbookEntry;
}

/** An alarm at or above `spec.threshold` that notifies `action` when it fires and when it recovers. */
export function pagingAlarm(scope: Construct, id: string, spec: PagingAlarmSpec, action: SnsAction): Alarm {
  const alarm = new Alarm(scope, id, {
    metric: spec.metric,
    threshold: spec.threshold,
    evaluationPeriods: spec.datapoints.of,
    datapointsToAlarm: spec.datapoints.breaching,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
    alarmDescription: `${spec.description} (docs/runbook.md#${spec.runbook})`,
  });
  alarm.addAlarmAction(action);
  alarm.addOkAction(action);
  return alarm;
}

/**
 * CloudFront's 5xx rate of one distribution, in 3 of 5 minutes. Its metrics exist only in us-east-1
 * (dimension `Region: Global`), so the alarm must live there too.
 */
export function edge5xxRateSpec(distributionId: string, thresholds: Pick<AlarmThresholds, 'edge5xxRatePercent'>): PagingAlarmSpec {
  const percent = thresholds.edge5xxRatePercent;
  return {
    metric: new Metric({
      namespace: 'AWS/CloudFront',
      metricName: '5xxErrorRate',
      dimensionsMap: { DistributionId: distributionId, Region: 'Global' },
      statistic: 'Average',
      period: Duration.minutes(1),
    }),
    description: `CloudFront answered at least ${percent}% 5xx`,
    threshold: percent,
    datapoints: { of: 5, breaching: 3 },
    runbook: 'edge-5xx-rate',
  };
}
