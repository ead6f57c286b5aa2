/** Types of `dynamo-local.js` (plain JavaScript so that jest's global setup can load it). */

/** A running DynamoDB Local process. */
export interface DynamoLocalProcess {
  readonly endpoint: string;
  /** The region and credentials to sign with: only these see the data, unless started `shared`. */
  readonly region: string;
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  readonly pid: number | undefined;
  close(): Promise<void>;
}

/** Whether a JRE is on PATH (`java -version` runs). */
export function javaAvailable(): boolean;

/**
 * Start DynamoDB Local on a free port; `path` keeps the data on disk, in memory when absent.
 * `shared` (test workers only): one database whatever the credentials.
 */
export function startDynamoLocal(options?: { path?: string; shared?: boolean }): Promise<DynamoLocalProcess>;
