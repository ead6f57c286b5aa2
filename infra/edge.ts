/**
 * The public endpoint: a CloudFront distribution in front of the HTTP API. Its viewer-request
 * function (generated from THE routes table) maps `/api/org-api-keys?action=<op>` and the other public
 * paths onto API Gateway routes; its origin requests carry the secret header the functions check.
 */
import { Duration, Stack, Token } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as EdgeFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  OriginSslPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  SecurityPolicyProtocol,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { ORIGIN_VERIFY_HEADER } from '../shared/platform/secrets.js';
import type { RouteDefinition } from '../shared/platform/route.js';
import { ConsoleSite, type ConsoleSettings } from './console-site.js';
import { edgeRewriteSource } from './edge-rewrite.js';
import { EdgeRateLimit } from './waf.js';

/** The region of CloudFront's web ACLs (scope CLOUDFRONT), its certificates and its metrics: CloudFront's one region. */
export const CLOUDFRONT_REGION = 'us-east-1';

/** A custom domain for the distribution; the certificate must be in us-east-1 (CloudFront's rule). */
export interface CustomDomain {
  readonly domainName: string;
  readonly certificateArn: string;
}

export interface ServiceEdgeProps {
  readonly routes: readonly RouteDefinition[];
  /** The HTTP API's host name: its custom domain, or else its execute-api endpoint. */
  readonly originDomainName: string;
  /** Its value is sent to the origin in {@link ORIGIN_VERIFY_HEADER}. */
  readonly originSecret: ISecret;
  readonly domain?: CustomDomain;
  /** An AWS WAF web ACL (scope CLOUDFRONT, created in us-east-1) to attach, by ARN. */
  readonly webAclArn?: string;
  /**
   * Create a web ACL with the anonymous per-address rate rule (`infra/waf.ts`) and attach it. Only
   * where the stack is deployed to us-east-1 (or its region is not known yet: an offline synth).
   */
  readonly wafRateLimit?: number;
  /** Shown in the distribution's comment: a new revision makes CloudFormation read the secret again. */
  readonly secretsRevision: number;
  /** Serve the admin console under `/console/` (`infra/console-site.ts`); none without its client registration. */
  readonly console?: ConsoleSettings;
}

export class ServiceEdge extends Construct {
  readonly distribution: Distribution;
  readonly rewrite: EdgeFunction;
  /** The public base URL (`https://` + custom domain or the distribution's domain). */
  readonly baseUrl: string;
  readonly hasCustomDomain: boolean;
  readonly hasWebAcl: boolean;
  /** The stack's own web ACL (context `wafRateLimit`). */
  readonly rateLimit?: EdgeRateLimit;
  /** The admin console's bucket and behaviours (when `console` settings were given). */
  readonly console?: ConsoleSite;

  constructor(scope: Construct, id: string, props: ServiceEdgeProps) {
    super(scope, id);
    checkWebAcl(props, Stack.of(this).region);
    this.hasCustomDomain = props.domain !== undefined;
    if (props.wafRateLimit) this.rateLimit = new EdgeRateLimit(this, 'RateLimit', { limit: props.wafRateLimit });
    this.hasWebAcl = props.webAclArn !== undefined || this.rateLimit !== undefined;
    this.rewrite = new EdgeFunction(this, 'Rewrite', {
      comment: 'Maps public paths and ?action= onto API Gateway routes (generated from the routes table)',
      runtime: FunctionRuntime.JS_2_0,
      code: FunctionCode.fromInline(edgeRewriteSource(props.routes)),
    });
    this.distribution = this.createDistribution(props);
    this.baseUrl = `https://${props.domain?.domainName ?? this.distribution.distributionDomainName}`;
    if (props.console) this.console = new ConsoleSite(this, 'Console', { distribution: this.distribution, settings: props.console });
  }

  /**
   * The distribution, with one behaviour for every path of the routes table: the rewrite decides,
   * and answers anything else itself (404/400/405), so new routes need no distribution change.
   */
  private createDistribution(props: ServiceEdgeProps): Distribution {
    return new Distribution(this, 'Distribution', {
      comment: `Game Session Token Service (secrets revision ${props.secretsRevision})`,
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_ALL,
      domainNames: props.domain ? [props.domain.domainName] : undefined,
      certificate: props.domain ? Certificate.fromCertificateArn(this, 'Certificate', props.domain.certificateArn) : undefined,
      // Applies with a custom certificate; the default *.cloudfront.net certificate has a fixed policy.
      minimumProtocolVersion: props.domain ? SecurityPolicyProtocol.TLS_V1_2_2021 : undefined,
      webAclId: props.webAclArn ?? this.rateLimit?.webAcl.attrArn,
      defaultBehavior: {
        origin: apiOrigin(props),
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_ALL,
        // Every answer is per request (tokens, keys, pages with a nonce): nothing is cached, and the
        // whole viewer request (Authorization included) reaches the origin except its Host header.
        cachePolicy: CachePolicy.CACHING_DISABLED,
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        responseHeadersPolicy: securityHeaders(this),
        compress: true,
        functionAssociations: [{ function: this.rewrite, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
    });
  }
}

/**
 * A distribution takes one web ACL, and a CLOUDFRONT-scope web ACL exists only in us-east-1: refuse
 * both mistakes at synth rather than at deploy, half-way through a stack update.
 */
function checkWebAcl(props: ServiceEdgeProps, region: string): void {
  if (props.webAclArn && props.wafRateLimit) {
    throw new Error('a distribution has one web ACL: give webAclArn or wafRateLimit, not both');
  }
  if (props.wafRateLimit && !Token.isUnresolved(region) && region !== CLOUDFRONT_REGION) {
    throw new Error(
      `a CloudFront web ACL can only be created in ${CLOUDFRONT_REGION}, not ${region}: infra/deployment.ts puts it in a stack of its own`,
    );
  }
}

/** The HTTP API as CloudFront's origin: HTTPS only, every request carrying the origin-verify secret. */
function apiOrigin(props: ServiceEdgeProps): HttpOrigin {
  return new HttpOrigin(props.originDomainName, {
    protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
    originSslProtocols: [OriginSslPolicy.TLS_V1_2],
    readTimeout: Duration.seconds(30),
    // CloudFront overwrites a viewer header of the same name, so clients cannot supply it themselves.
    customHeaders: { [ORIGIN_VERIFY_HEADER]: props.originSecret.secretValue.unsafeUnwrap() },
  });
}

/**
 * The headers every answer needs (HSTS, nosniff, referrer policy). Pages set their own framing and
 * content policies, so the edge keeps whatever the origin already sent (`override: false`).
 */
function securityHeaders(scope: Construct): ResponseHeadersPolicy {
  return new ResponseHeadersPolicy(scope, 'Headers', {
    comment: 'HSTS, nosniff and referrer policy for every response',
    securityHeadersBehavior: {
      strictTransportSecurity: { accessControlMaxAge: Duration.days(730), includeSubdomains: true, override: false },
      contentTypeOptions: { override: false },
      referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN, override: false },
    },
  });
}
