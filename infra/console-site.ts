/**
 * The admin console in AWS: its built files in a private S3 bucket, served by the service's own
 * CloudFront distribution under `/console/` through origin access control (the bucket answers
 * CloudFront only). Hashed assets are cached for a year; `index.html` and `config.json` are never
 * cached, so a deploy shows at once. `config.json` is written at deploy from the CDK context.
 */
import { AssetHashType, DockerImage, Duration, RemovalPolicy } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Function as EdgeFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
  type BehaviorOptions,
  type Distribution,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { fileURLToPath } from 'node:url';
import { buildConsole, consoleConfig, consoleCsp } from './console-build.js';

/** What the console signs in with (CDK context `consoleIssuer`, `consoleClientId`, `consoleAudience`). */
export interface ConsoleSettings {
  /** The OIDC issuer the admins sign in with. */
  readonly issuer: string;
  /** The console's public client (no secret) registered at that issuer. */
  readonly clientId: string;
  /** The API's audience, asked for at sign-in. */
  readonly audience: string;
  /** Origins the browser must also reach besides the issuer's (Cognito's hosted UI domain: its token endpoint). */
  readonly connectOrigins?: readonly string[];
}

export interface ConsoleSiteProps {
  readonly distribution: Distribution;
  readonly settings: ConsoleSettings;
}

/** The console's path on the distribution. */
const CONSOLE_PATHS = { page: '/console', files: '/console/*', assets: '/console/assets/*' } as const;

/** `/console` → `/console/` (the redirect URI); `/console/` → the page's object. */
const INDEX_FUNCTION = `function handler(event) {
  var request = event.request;
  if (request.uri === '/console') {
    return { statusCode: 301, statusDescription: 'Moved Permanently', headers: { location: { value: '/console/' } } };
  }
  if (request.uri === '/console/') request.uri = '/console/index.html';
  return request;
}`;

export class ConsoleSite extends Construct {
  readonly bucket: Bucket;
  readonly headers: ResponseHeadersPolicy;
  readonly assetsCache: CachePolicy;
  readonly indexFunction: EdgeFunction;
  /** The two uploads: hashed assets (immutable), then the page and its config (no-cache). */
  readonly deployments: { readonly assets: BucketDeployment; readonly page: BucketDeployment };

  constructor(scope: Construct, id: string, props: ConsoleSiteProps) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // Only the built console lives here: a deploy puts it back.
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
    });
    this.headers = consoleHeaders(this, props.settings);
    this.assetsCache = new CachePolicy(this, 'AssetsCache', {
      comment: 'Console assets: content-hashed names, cached a year',
      minTtl: Duration.days(365),
      defaultTtl: Duration.days(365),
      maxTtl: Duration.days(365),
      enableAcceptEncodingGzip: true,
      enableAcceptEncodingBrotli: true,
    });
    this.indexFunction = new EdgeFunction(this, 'Index', {
      comment: 'Console: /console redirects to /console/, which is index.html',
      runtime: FunctionRuntime.JS_2_0,
      code: FunctionCode.fromInline(INDEX_FUNCTION),
    });
    this.addBehaviors(props.distribution);
    this.deployments = this.upload(props);
  }

  private addBehaviors(distribution: Distribution): void {
    const origin = S3BucketOrigin.withOriginAccessControl(this.bucket);
    const common: Omit<BehaviorOptions, 'origin'> = {
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
      responseHeadersPolicy: this.headers,
      compress: true,
    };
    distribution.addBehavior(CONSOLE_PATHS.assets, origin, { ...common, cachePolicy: this.assetsCache });
    const page = {
      ...common,
      cachePolicy: CachePolicy.CACHING_DISABLED,
      functionAssociations: [{ function: this.indexFunction, eventType: FunctionEventType.VIEWER_REQUEST }],
    };
    distribution.addBehavior(CONSOLE_PATHS.files, origin, page);
    distribution.addBehavior(CONSOLE_PATHS.page, origin, page);
  }

  /** The build (run by CDK's local bundling at synth) and `config.json`, under the `console/` prefix. */
  private upload(props: ConsoleSiteProps): ConsoleSite['deployments'] {
    const built = Source.asset(fileURLToPath(new URL('./console/', import.meta.url)), {
      assetHashType: AssetHashType.OUTPUT,
      bundling: {
        // Never used: the local bundling below always succeeds or throws.
        image: DockerImage.fromRegistry('public.ecr.aws/docker/library/node:24-slim'),
        local: { tryBundle: (outputDir) => (buildConsole(outputDir), true) },
      },
    });
    // prune: false keeps the assets an older, still cached page names (they are content-addressed).
    const assets = new BucketDeployment(this, 'Assets', {
      sources: [built],
      destinationBucket: this.bucket,
      destinationKeyPrefix: 'console/',
      exclude: ['*'],
      include: ['assets/*'],
      prune: false,
      cacheControl: [CacheControl.fromString('public, max-age=31536000, immutable')],
    });
    const page = new BucketDeployment(this, 'Page', {
      sources: [built, Source.jsonData('config.json', consoleConfig(props.settings))],
      destinationBucket: this.bucket,
      destinationKeyPrefix: 'console/',
      exclude: ['assets/*'],
      prune: false,
      cacheControl: [CacheControl.noCache()],
    });
    // The page names assets: they are uploaded first.
    page.node.addDependency(assets);
    return { assets, page };
  }
}

/** The strict CSP, HSTS, no framing, nosniff and no referrer, on every console answer (overriding S3's). */
function consoleHeaders(scope: Construct, settings: ConsoleSettings): ResponseHeadersPolicy {
  const origins = [new URL(settings.issuer).origin, ...(settings.connectOrigins ?? [])];
  return new ResponseHeadersPolicy(scope, 'Headers', {
    comment: 'Admin console: strict CSP (own scripts and styles, the API, the identity provider), HSTS, no framing',
    securityHeadersBehavior: {
      contentSecurityPolicy: { contentSecurityPolicy: consoleCsp(origins), override: true },
      strictTransportSecurity: { accessControlMaxAge: Duration.days(730), includeSubdomains: true, override: true },
      contentTypeOptions: { override: true },
      frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
      referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
    },
  });
}
