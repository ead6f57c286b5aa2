/**
 * The stacks of one deployment: the service stack, and — when `wafRateLimit` is given and the
 * service lives outside us-east-1 — the web ACL in a stack of its own in us-east-1 (CloudFront's web
 * ACLs exist only there). `infra/app.ts` builds it; the infra tests build it the same way.
 */
import { Annotations, Token, type App } from 'aws-cdk-lib';
import { serviceStackProps, type DeployContext } from './config.js';
import type { ServiceStackProps } from './stack-props.js';
import { ServiceStack } from './stack.js';
import { EdgeWafStack } from './waf.js';

/** The region CloudFront's web ACLs (scope CLOUDFRONT) live in. */
const CLOUDFRONT_WAF_REGION = 'us-east-1';

export interface Deployment {
  readonly service: ServiceStack;
  /** The separate web ACL stack, when the service's region is not us-east-1. */
  readonly waf?: EdgeWafStack;
}

/** Build the deployment's stacks into `app`. */
export function buildDeployment(app: App, context: DeployContext, env: ServiceStackProps['env']): Deployment {
  const props = serviceStackProps(context, env);
  const region = env?.region;
  const elsewhere =
    context.wafRateLimit !== undefined && region !== undefined && !Token.isUnresolved(region) && region !== CLOUDFRONT_WAF_REGION;
  if (!elsewhere) {
    // In us-east-1 (or an offline synth, region unknown) the service stack holds the web ACL.
    if (context.wafRateLimit !== undefined && context.webAclArn) {
      throw new Error('a distribution has one web ACL: give webAclArn or wafRateLimit, not both');
    }
    return { service: new ServiceStack(app, context.stackName, props) };
  }
  const waf = new EdgeWafStack(app, `${context.stackName}-EdgeWaf`, {
    env: { account: env?.account, region: CLOUDFRONT_WAF_REGION },
    limit: context.wafRateLimit!,
    terminationProtection: context.terminationProtection,
  });
  const service = new ServiceStack(app, context.stackName, { ...props, wafRateLimit: undefined });
  if (!context.webAclArn) {
    Annotations.of(service).addWarningV2(
      'gsts:web-acl-pending',
      `wafRateLimit outside ${CLOUDFRONT_WAF_REGION}: deploy ${waf.stackName} first, then this stack with -c webAclArn=<its WebAclArn output> ` +
        '(docs/deploy.md, "WAF"). Until then the distribution has no web ACL.',
    );
  }
  return { service, waf };
}
