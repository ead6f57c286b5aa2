/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles (an esbuild alias set in
 * `infra/functions.ts`). In Lambda the execution role's credentials are always in the environment,
 * the first place the SDK's default chain looks; the rest of that chain (SSO, shared INI files,
 * credential processes, web identity, container and instance metadata, with the STS, SSO and
 * sign-in clients they need) is never reached there, yet is about a third of every bundle and is
 * parsed at every cold start. Local runs and tests load the real chain (they are not bundled).
 */

/** Temporary credentials as the SDK wants them. */
interface EnvCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly expiration?: Date;
}

/** The SDK's `credentialDefaultProvider`: the environment's credentials, as `fromEnv` reads them. */
export function defaultProvider(_init?: unknown): () => Promise<EnvCredentials> {
  return async () => {
    const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_CREDENTIAL_EXPIRATION } = process.env;
    if (!AWS_ACCESS_KEY_ID || !AWS_SECRET_ACCESS_KEY) {
      throw new Error('No AWS credentials in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)');
    }
    return {
      accessKeyId: AWS_ACCESS_KEY_ID,
      secretAccessKey: AWS_SECRET_ACCESS_KEY,
      ...(AWS_SESSION_TOKEN ? { sessionToken: AWS_SESSION_TOKEN } : {}),
      ...(AWS_CREDENTIAL_EXPIRATION ? { expiration: new Date(AWS_CREDENTIAL_EXPIRATION) } : {}),
    };
  };
}
