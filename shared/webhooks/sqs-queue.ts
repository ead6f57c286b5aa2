/**
 * Signed requests of SQS's JSON protocol to one queue (`AmazonSQS.<action>`), made with the pieces
 * the DynamoDB client already brings (SigV4 signer, SHA-256, the environment's credentials), not the
 * SQS client: that would add about 50 KB to each function that sends (test-webhook, retry, the MCP
 * server and the workers) and its own start-up to their cold starts (figures in BENCHMARKS.md).
 */
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import { request } from 'node:https';

/** A send that takes longer failed (the caller's retry, or the stream or queue's, sends it again). */
const SEND_TIMEOUT_MS = 5_000;

/** The SQS actions the service sends. */
export type SqsAction = 'SendMessage' | 'SendMessageBatch';

/** See the module comment. */
export class SqsQueue {
  private readonly url: URL;
  private readonly signer: SignatureV4;

  constructor(queueUrl: string, region: string) {
    this.url = new URL(queueUrl);
    this.signer = new SignatureV4({ service: 'sqs', region, credentials: defaultProvider(), sha256: Sha256 });
  }

  /** One signed request; its answer's body. @throws on any answer but 200 */
  async post(action: SqsAction, body: string): Promise<string> {
    const { hostname } = this.url;
    const signed = await this.signer.sign({
      method: 'POST',
      protocol: 'https:',
      hostname,
      path: '/',
      query: {},
      headers: { host: hostname, 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `AmazonSQS.${action}` },
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
