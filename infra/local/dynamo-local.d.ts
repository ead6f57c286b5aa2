/** Types of `dynamo-local.js` (plain JavaScript so that jest's global setup can load it). */

/** A running DynamoDB Local process. */
export interface DynamoLocalProcess {
  readonly endpoint: string;
  readonly pid: number | undefined;
  close(): Promise<void>;
}

/** Whether a JRE is on PATH (`java -version` runs). */
export function javaAvailable(): boolean;

/** Start DynamoDB Local on a free port; `path` keeps the data on disk, in memory when absent. */
export function startDynamoLocal(options?: { path?: string }): Promise<DynamoLocalProcess>;
