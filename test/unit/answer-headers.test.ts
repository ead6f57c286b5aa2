/**
 * Every answer a function gives carries `X-Content-Type-Options: nosniff`, a
 * failure's 500 too: the header is added where every answer passes (`shared/platform/http/answers.ts`), not
 * by each way of building one.
 */
import { expect, jest, test } from '@jest/globals';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { ApiContext } from '../../shared/platform/http/pipeline.js';
import { respond } from '../../shared/platform/http/answers.js';

const event = {
  headers: {},
  requestContext: { requestId: 'req-1', http: { method: 'GET', path: '/x', sourceIp: '203.0.113.9', userAgent: 'ua' } },
} as unknown as APIGatewayProxyEventV2;

function handler(run: () => Promise<APIGatewayProxyStructuredResultV2>) {
  const h = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, ApiContext>()
    .use(respond({ operation: 'probe', auth: 'none' }))
    .handler(run);
  return (h as unknown as (e: APIGatewayProxyEventV2, c: Context) => Promise<APIGatewayProxyStructuredResultV2>)(event, {} as Context);
}

test('a failure (500), a document and a transport answer built without the header get it', async () => {
  // The request lines the middleware logs are not this test's subject.
  const quiet = [process.stdout, process.stderr].map((stream) => jest.spyOn(stream, 'write').mockImplementation(() => true));
  const failed = await handler(async () => {
    throw new Error('boom');
  });
  const plain = await handler(async () => ({ statusCode: 200, headers: { 'content-type': 'text/plain' }, body: 'ok' }));
  const bare = await handler(async () => ({ statusCode: 202 }));
  for (const spy of quiet) spy.mockRestore();
  expect([failed, plain, bare].map((r) => [r.statusCode, (r.headers as Record<string, string>)['x-content-type-options']])).toEqual([
    [500, 'nosniff'],
    [200, 'nosniff'],
    [202, 'nosniff'],
  ]);
});
