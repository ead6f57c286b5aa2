/**
 * The optional WAF web ACL of the distribution (context `wafRateLimit`): one rate-based rule that
 * answers 429 to an address sending more anonymous requests (no `x-api-key`, no `Authorization`)
 * in 5 minutes than the limit. Key-authenticated calls are left to the service's exact per-key
 * limits: one partner server may legitimately send 100,000 calls a minute from one address.
 *
 * A CLOUDFRONT-scope web ACL exists only in us-east-1. In a us-east-1 stack (or an offline synth,
 * whose region is unknown) it is part of the service stack; for any other region `infra/app.ts`
 * puts it into a stack of its own in us-east-1 (docs/deploy.md, "WAF").
 */
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { errorTable } from '../shared/platform/errors.js';
import { ANSWER_HEADERS, jsonResponse } from '../shared/platform/http/answers.js';

/** The window the rate-based rule counts in (WAF allows 60, 120, 300 or 600 seconds). */
export const WAF_WINDOW_SECONDS = 300;
/** Name of the rule (and of its CloudWatch metric). */
export const WAF_RATE_RULE = 'AnonymousRequestsPerAddress';

/**
 * Same envelope as the service's own refusals (built by its `jsonResponse`), so a browser's script
 * shows the same kind of error, with the status and code of THE error table. No `request_id`: a WAF custom response body is fixed text, so
 * it cannot carry a per-request value (the OpenAPI `ErrorResponse` says it may be absent).
 */
const [TOO_MANY_STATUS, TOO_MANY_CODE] = errorTable.RateLimited;
const TOO_MANY_BODY = String(
  jsonResponse(TOO_MANY_STATUS, { error: 'Too many requests from this address; try again in a few minutes', code: TOO_MANY_CODE }).body,
);

/** A header that is present and not empty. */
const hasHeader = (name: string): CfnWebACL.StatementProperty => ({
  sizeConstraintStatement: {
    fieldToMatch: { singleHeader: { Name: name } },
    comparisonOperator: 'GT',
    size: 0,
    textTransformations: [{ priority: 0, type: 'NONE' }],
  },
});

export interface EdgeRateLimitProps {
  /** Anonymous requests one address may send per {@link WAF_WINDOW_SECONDS}. */
  readonly limit: number;
}

/** The web ACL (scope CLOUDFRONT) with the anonymous per-address rate rule. */
export class EdgeRateLimit extends Construct {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: EdgeRateLimitProps) {
    super(scope, id);
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      description: 'Game Session Token Service: anonymous requests per address',
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: 'GameSessionTokenServiceEdge', sampledRequestsEnabled: true },
      customResponseBodies: { 'too-many-requests': { contentType: 'APPLICATION_JSON', content: TOO_MANY_BODY } },
      rules: [
        {
          name: WAF_RATE_RULE,
          priority: 0,
          statement: {
            rateBasedStatement: {
              limit: props.limit,
              aggregateKeyType: 'IP',
              evaluationWindowSec: WAF_WINDOW_SECONDS,
              // Only requests without a credential: a forged header only moves the request to the
              // functions, which refuse a bad key or token at once (401) and count nothing.
              scopeDownStatement: {
                notStatement: { statement: { orStatement: { statements: [hasHeader('x-api-key'), hasHeader('authorization')] } } },
              },
            },
          },
          action: {
            block: {
              customResponse: {
                responseCode: TOO_MANY_STATUS,
                customResponseBodyKey: 'too-many-requests',
                // The WAF answers by itself: the headers every answer of the service carries (nosniff).
                responseHeaders: Object.entries(ANSWER_HEADERS).map(([name, value]) => ({ name, value })),
              },
            },
          },
          visibilityConfig: { cloudWatchMetricsEnabled: true, metricName: WAF_RATE_RULE, sampledRequestsEnabled: true },
        },
      ],
    });
  }
}

export interface EdgeWafStackProps extends StackProps {
  readonly limit: number;
}

/**
 * The web ACL alone, for a service stack outside us-east-1: deploy it first, then the service
 * stack with `-c webAclArn=<its WebAclArn output>`.
 */
export class EdgeWafStack extends Stack {
  readonly rateLimit: EdgeRateLimit;

  constructor(scope: Construct, id: string, props: EdgeWafStackProps) {
    super(scope, id, { description: 'Game Session Token Service: the CloudFront web ACL (us-east-1)', ...props });
    this.rateLimit = new EdgeRateLimit(this, 'EdgeRateLimit', { limit: props.limit });
    new CfnOutput(this, 'WebAclArn', {
      description: 'Pass to the service stack as -c webAclArn=<this>',
      value: this.rateLimit.webAcl.attrArn,
    });
  }
}
