/** A JSON-RPC internal error from the MCP SDK is told apart from every other answer (it is logged). */
import { expect, test } from '@jest/globals';
import { internalErrorOf } from '../../shared/mcp/endpoint.js';

const answer = (body: string) => ({ statusCode: 200, body });

test('an internal error (-32603) is found, with its message', () => {
  expect(internalErrorOf(answer('{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}'))).toBe('boom');
});

test('results, tool errors, other JSON-RPC errors and non-JSON bodies are not internal errors', () => {
  expect(internalErrorOf(answer('{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}'))).toBeUndefined();
  expect(
    internalErrorOf(answer('{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text","text":"-32603"}]}}')),
  ).toBeUndefined();
  expect(internalErrorOf(answer('{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params -32603"}}'))).toBeUndefined();
  expect(internalErrorOf(answer('not json -32603'))).toBeUndefined();
  expect(internalErrorOf({ statusCode: 202 })).toBeUndefined();
});
