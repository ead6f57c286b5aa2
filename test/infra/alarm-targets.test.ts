/**
 * Where alarms go besides the service stack's topic: a Slack channel through AWS Chatbot, and the
 * us-east-1 stack of the CloudFront 5xx alarm when the service lives in another region (CloudFront's
 * metrics exist only there, and an alarm notifies only a topic of its own region).
 */
import { describe, expect, test } from '@jest/globals';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readDeployContext } from '../../infra/config.js';
import { buildDeployment } from '../../infra/deployment.js';
import { asList, cdkApp, logicalId, referencedIds, resourcesOf, synthesize, workerEntry, type Synthesized } from './fixture.js';

const DISTRIBUTION = 'E2QWRUHAPOMQZL';
const SLACK = { alarmSlackWorkspaceId: 'T07EA123LEP', alarmSlackChannelId: 'C07EZ1ABC23' };
const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:ops-alarms';

/** The deployment's stacks for a context, in `region`, synthesized. */
function deploy(values: Record<string, unknown>, region: string) {
  const app = cdkApp({ 'aws:cdk:bundling-stacks': [] });
  const stacks = buildDeployment(
    app,
    readDeployContext((key) => values[key]),
    { account: '123456789012', region },
    { workerEntry },
  );
  app.synth();
  return { app, ...stacks };
}

const json = (template: Template) => template.toJSON() as Synthesized['json'];
const alarmsOf = (j: Synthesized['json']) => resourcesOf(j, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);

describe('a Slack channel through AWS Chatbot', () => {
  test('the context takes the workspace and the channel together, and they count as a target', () => {
    const read = (values: Record<string, unknown>) => readDeployContext((key) => values[key]);
    expect(() => read(SLACK)).not.toThrow();
    expect(() => read({ alarmSlackChannelId: SLACK.alarmSlackChannelId })).toThrow(/alarmSlackChannelId: .*go together/);
    expect(() => read({ ...SLACK, alarmSlackChannelId: '#ops' })).toThrow(/alarmSlackChannelId: must be a Slack channel id/);
  });

  test('its configuration listens to the alarm topic, with a read-only guardrail (not CDK’s default AdministratorAccess)', () => {
    const s = synthesize({ alarmSlack: { workspaceId: SLACK.alarmSlackWorkspaceId, channelId: SLACK.alarmSlackChannelId } });
    const configs = resourcesOf(s.json, 'AWS::Chatbot::SlackChannelConfiguration');
    expect(configs).toHaveLength(1);
    const props = configs[0]![1].Properties;
    expect(props).toMatchObject({ SlackWorkspaceId: 'T07EA123LEP', SlackChannelId: 'C07EZ1ABC23', ConfigurationName: 'Test-alarms' });
    expect(props.SnsTopicArns).toEqual([{ Ref: logicalId(s.stack, s.stack.ownAlarmTopic!.topic) }]);
    expect(JSON.stringify(props.GuardrailPolicies)).toContain('CloudWatchReadOnlyAccess');
    expect(JSON.stringify(props.GuardrailPolicies)).not.toContain('AdministratorAccess');
    const role = s.json.Resources[props.IamRoleArn['Fn::GetAtt'][0]]!;
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    expect(
      resourcesOf(s.json, 'AWS::IAM::Policy').filter(([, p]) => referencedIds(p.Properties.Roles).has(props.IamRoleArn['Fn::GetAtt'][0])),
    ).toEqual([]);
    expect(new AwsSolutionsChecks().validateScope(s.app).violations).toEqual([]);
  });
});

describe('the CloudFront 5xx alarm of a stack outside us-east-1', () => {
  test('until the distribution id is given: no edge stack, and a warning saying how', () => {
    const { service, edgeAlarms } = deploy({ noAlarmTarget: 'true' }, 'eu-west-1');
    expect(edgeAlarms).toBeUndefined();
    expect(alarmsOf(json(Template.fromStack(service))).some((a) => a.Namespace === 'AWS/CloudFront')).toBe(false);
    Annotations.fromStack(service).hasWarning(
      '*',
      Match.stringLikeRegexp('deploy GameSessionTokenService-EdgeAlarms with -c distributionId'),
    );
  });

  test('with it: a us-east-1 stack whose alarm notifies its own topic, which CloudWatch may publish to over TLS only', () => {
    const context = { alarmEmail: 'ops@example.com', alarmWebhookUrl: 'https://hooks.example.com/sns', ...SLACK };
    const { app, edgeAlarms } = deploy({ ...context, distributionId: DISTRIBUTION, alarms: '{"edge5xxRatePercent":3}' }, 'eu-west-1');
    expect(edgeAlarms!.region).toBe('us-east-1');
    expect(edgeAlarms!.stackName).toBe('GameSessionTokenService-EdgeAlarms');
    const template = Template.fromStack(edgeAlarms!);
    const j = json(template);
    const topicId = logicalId(edgeAlarms as never, edgeAlarms!.destination.own!.topic);
    const [alarm, ...others] = alarmsOf(j);
    expect(others).toEqual([]);
    expect(alarm).toMatchObject({
      Namespace: 'AWS/CloudFront',
      MetricName: '5xxErrorRate',
      Dimensions: expect.arrayContaining([
        { Name: 'DistributionId', Value: DISTRIBUTION },
        { Name: 'Region', Value: 'Global' },
      ]),
      Threshold: 3,
      EvaluationPeriods: 5,
      DatapointsToAlarm: 3,
      AlarmActions: [{ Ref: topicId }],
      OKActions: [{ Ref: topicId }],
    });
    expect(alarm!.AlarmDescription).toMatch(/\(docs\/runbook\.md#edge-5xx-rate\)$/);
    const statements = resourcesOf(j, 'AWS::SNS::TopicPolicy').flatMap(([, p]) => asList(p.Properties.PolicyDocument.Statement)) as Record<
      string,
      any
    >[];
    const allow = statements.find((st) => st.Effect === 'Allow' && asList(st.Principal?.Service).includes('cloudwatch.amazonaws.com'))!;
    expect(asList(allow.Action)).toContain('sns:Publish');
    expect(JSON.stringify(allow.Condition.ArnLike['aws:SourceArn'])).toContain(':cloudwatch:us-east-1:123456789012:alarm:*');
    expect(statements.filter((st) => st.Effect === 'Deny').map((st) => st.Condition)).toEqual([
      { Bool: { 'aws:SecureTransport': 'false' } },
    ]);
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: { Ref: topicId },
    });
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'https', Endpoint: 'https://hooks.example.com/sns' });
    template.hasResourceProperties('AWS::Chatbot::SlackChannelConfiguration', {
      ConfigurationName: 'GameSessionTokenService-EdgeAlarms-alarms',
      SnsTopicArns: [{ Ref: topicId }],
    });
    expect(new AwsSolutionsChecks().validateScope(app).violations).toEqual([]);
  });

  test('in us-east-1 the service stack holds the alarm itself; an existing topic alone leaves the edge topic unheard (a warning)', () => {
    const east = deploy({ noAlarmTarget: 'true', distributionId: DISTRIBUTION }, 'us-east-1');
    expect(east.edgeAlarms).toBeUndefined();
    expect(alarmsOf(json(Template.fromStack(east.service))).filter((a) => a.Namespace === 'AWS/CloudFront')).toHaveLength(1);
    const { edgeAlarms } = deploy({ alarmTopicArn: TOPIC, distributionId: DISTRIBUTION }, 'eu-west-1');
    Annotations.fromStack(edgeAlarms!).hasWarning('*', Match.stringLikeRegexp('has no subscriber'));
  });
});
