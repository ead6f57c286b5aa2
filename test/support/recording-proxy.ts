/**
 * The recording proxy of the bundled tests: an HTTP proxy between the bundles and the embedded
 * DynamoDB that notes every call (operation, table, how it was signed, what DynamoDB answered) and
 * the step of the child script that made it.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { requestTarget, type DynamoConnection } from '../../infra/local/dynamo.js';

/** One DynamoDB call a bundle made, as the recording proxy saw it. */
export interface DynamoCall {
  readonly operation: string;
  readonly table: string | undefined;
  readonly accessKeyId: string | undefined;
  readonly region: string | undefined;
  readonly sessionToken: string | undefined;
  readonly status: number;
  /** The error type DynamoDB answered (`ConditionalCheckFailedException`), if any. */
  readonly error: string | undefined;
  /** The step of the child script that made it (the last `step(name)` of the child script before it, `bundled-child.ts`), if the script names steps. */
  readonly step: string | undefined;
}

/** Path of the proxy that marks a step instead of forwarding (never a DynamoDB path: the SDK posts to `/`). */
export const STEP_PATH = '/__bundled-step';

/**
 * An HTTP proxy to `target` that notes every DynamoDB call passing through it (when DynamoDB has
 * answered it), each with the child's step current at that moment. It listens on a loopback port,
 * for the bundles in the child process: test-only (the local run's dynalite has no port).
 */
export async function recordingProxy(target: DynamoConnection, into: DynamoCall[]): Promise<{ server: Server; endpoint: string }> {
  let step: string | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.url === STEP_PATH) {
        step = body.toString('utf8');
        res.writeHead(204).end();
        return;
      }
      const to = { ...requestTarget(target), method: req.method, path: req.url, headers: req.headers };
      const upstream = request(to, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => parts.push(chunk));
        answer.on('end', () => {
          const reply = Buffer.concat(parts);
          into.push(describeCall(req.headers, body, answer.statusCode ?? 0, reply, step));
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(reply);
        });
      });
      upstream.on('error', () => res.writeHead(502).end());
      upstream.end(body);
    });
  });
  // Longer than the child's SDK keeps an idle connection, so a reused one is never being dropped (an
  // ECONNRESET would be retried, and a retry is a call the tests count).
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function describeCall(
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
  status: number,
  reply: Buffer,
  step: string | undefined,
): DynamoCall {
  const credential = /Credential=([^/]+)\/\d{8}\/([^/]+)\/dynamodb\/aws4_request/.exec(String(headers.authorization ?? ''));
  const parse = (json: Buffer): Record<string, unknown> => {
    try {
      return JSON.parse(json.toString('utf8')) as Record<string, unknown>;
    } catch {
      return {};
    }
  };
  const type = status === 200 ? undefined : parse(reply).__type;
  return {
    operation: String(headers['x-amz-target'] ?? '').replace(/^DynamoDB_\d+\./, ''),
    table: parse(body).TableName as string | undefined,
    accessKeyId: credential?.[1],
    region: credential?.[2],
    sessionToken: headers['x-amz-security-token'] as string | undefined,
    status,
    error: typeof type === 'string' ? type.replace(/^.*#/, '') : undefined,
    step,
  };
}
