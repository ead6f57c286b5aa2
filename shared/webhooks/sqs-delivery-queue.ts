/**
 * The SQS adapter of {@link DeliveryQueue}: each message delayed until its `due_at`, at most the
 * 15 minutes SQS allows (the delivery worker sends a message that arrives early again with what
 * remains), ten to a request.
 *
 * One SQS action is all it takes, so it is one signed HTTPS request (SQS's JSON protocol,
 * `AmazonSQS.SendMessageBatch`) made with the pieces the DynamoDB client already brings (SigV4
 * signer, SHA-256, the environment's credentials), not the SQS client: that would add about 50 KB
 * to each function that sends (test-webhook, retry, the MCP server and the workers) and its own
 * start-up to their cold starts (figures in BENCHMARKS.md).
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import { request } from 'node:https';
import type { DeliveryMessage } from './delivery-model.js';
import type { DeliveryQueue } from './ports.js';

/** SQS's longest message delay. */
const MAX_QUEUE_DELAY_SECONDS = 900;
/** SQS takes at most 10 messages a request. */
const BATCH = 10;
/** A send that takes longer failed (the caller's retry, or the stream or queue's, sends it again). */
const SEND_TIMEOUT_MS = 5_000;

/** The delay of a message due at `dueAt` (ISO 8601), sent at `nowMs`: within SQS's 0..900 s. */
export function queueDelaySeconds(dueAt: string, nowMs: number): number {
  const seconds = Math.ceil((Date.parse(dueAt) - nowMs) / 1000);
  return Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(0, seconds));
}

/** The body of a SendMessageBatch of `messages`, each delayed until it is due. */
export function sendBatchBody(queueUrl: string, messages: readonly DeliveryMessage[], nowMs: number): string {
  return JSON.stringify({
    QueueUrl: queueUrl,
    Entries: messages.map((message, i) => ({
      Id: String(i),
      MessageBody: JSON.stringify(message),
      DelaySeconds: queueDelaySeconds(message.due_at, nowMs),
    })),
  });
}

/** See the module comment. */
export class SqsDeliveryQueue implements DeliveryQueue {
  private readonly url: URL;
  private readonly signer: SignatureV4;

  constructor(
    private readonly queueUrl: string,
    region: string,
    private readonly now: () => number,
  ) {
    this.url = new URL(queueUrl);
    this.signer = new SignatureV4({ service: 'sqs', region, credentials: defaultProvider(), sha256: Sha256 });
  }

  async send(messages: readonly DeliveryMessage[]): Promise<void> {
    for (let start = 0; start < messages.length; start += BATCH) {
      const batch = messages.slice(start, start + BATCH);
      const answer = await this.post(sendBatchBody(this.queueUrl, batch, this.now()));
      const failed = (JSON.parse(answer) as { Failed?: { Code?: string }[] }).Failed ?? [];
      if (failed.length > 0) throw new Error(`SQS refused ${failed.length} of ${batch.length} delivery messages: ${failed[0]!.Code}`);
    }
  }

  /** One signed request of SQS's JSON protocol; its answer's body. @throws on any answer but 200 */
  private async post(body: string): Promise<string> {
    const { hostname } = this.url;
    const signed = await this.signer.sign({
      method: 'POST',
      protocol: 'https:',
      hostname,
      path: '/',
      query: {},
      headers: { host: hostname, 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.SendMessageBatch' },
      body,
    });
    return new Promise((resolve, reject) => {
      const req = request({ hostname, path: '/', method: 'POST', headers: signed.headers, timeout: SEND_TIMEOUT_MS }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode === 200) resolve(text);
          else reject(new Error(`SQS answered ${res.statusCode}: ${text.slice(0, 300)}`));
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`SQS did not answer within ${SEND_TIMEOUT_MS} ms`)));
      req.on('error', reject);
      req.end(body);
    });
  }
}
