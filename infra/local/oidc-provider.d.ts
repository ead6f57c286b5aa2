/**
 * Types of the part of `oidc-provider` (v9, plain JavaScript, no published types) the local
 * development identity provider uses. The configuration is typed loosely: the library validates it
 * itself at construction and refuses what it does not know.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** The parts of the Koa context (`ctx.oidc`) the configuration's helpers read. */
  export interface OidcContext {
    readonly oidc: {
      readonly provider: Provider;
      readonly client?: ProviderClient;
      readonly session?: { readonly accountId?: string; grantIdFor(clientId: string): string | undefined };
      readonly params?: Record<string, unknown>;
      /** The result of the interaction the request resumes from, if any. */
      readonly result?: InteractionResults;
    };
  }

  /** A registered client, as the library hands it to the configuration's helpers. */
  export interface ProviderClient {
    readonly clientId: string;
    readonly redirectUris: readonly string[];
    grantTypeAllowed(grantType: string): boolean;
  }

  /** An adapter's stored payload (the library's own shape). */
  export type AdapterPayload = Record<string, unknown>;

  /** The storage contract of `oidc-provider` (one instance a model name). */
  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  /** The configuration object (see the library's documentation, "Configuration options"). */
  export type Configuration = Record<string, unknown>;

  /** What an interaction (the login or consent step) is about. */
  export interface InteractionDetails {
    readonly uid: string;
    readonly prompt: { readonly name: string; readonly reasons: readonly string[]; readonly details: Record<string, unknown> };
    readonly params: Record<string, unknown>;
    readonly session?: { readonly accountId: string };
    readonly grantId?: string;
  }

  /** The result an interaction ends with. */
  export interface InteractionResults {
    login?: { accountId: string; remember?: boolean };
    consent?: { grantId?: string };
    error?: string;
    error_description?: string;
  }

  /** The library's OAuth error classes (answered as `{ error, error_description }`). */
  export const errors: { readonly InvalidTarget: new (description?: string) => Error };

  /** An authorization grant: what an account allowed a client. */
  export class Grant {
    constructor(properties: { accountId: string; clientId: string });
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: readonly string[]): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
    static find(id: string): Promise<Grant | undefined>;
  }

  /** The authorization server (a Koa application). */
  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
    readonly Grant: typeof Grant;
    /**
     * A Node request listener (Koa's), settled once the response is written; mounted under a path,
     * `req.originalUrl` keeps the full path and `req.url` the rest.
     */
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: InteractionResults,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    /** The absolute URL of one of its routes (`jwks`, `authorization`, …). */
    urlFor(name: string, options?: Record<string, string>): string;
    on(event: string, listener: (...args: any[]) => void): this;
  }
}
