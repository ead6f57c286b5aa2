/**
 * The shape of the console's `config.json`, apart from the code that loads it (which needs a browser):
 * the front and the deploy write it (`consoleConfig` in infra/console-build.ts), the console reads it.
 */

/** What `GET /console/config.json` holds. */
export interface ConsoleConfig {
  /** The OIDC issuer the admins sign in with (discovery at `<issuer>/.well-known/openid-configuration`). */
  readonly issuer: string;
  /** The console's public client id at that provider. */
  readonly client_id: string;
  /** The API's audience: sent as `audience` (Auth0's parameter; providers that do not know it ignore it). */
  readonly audience: string;
  /** Where the REST operations are (`/api/org-api-keys`). */
  readonly api_base: string;
}
