/**
 * DynamoDB at its slowest that still answers, on jest's fake clock: the service's own client
 * (`createDocumentClient` as in AWS, so its retries and the request's deadline apply), in which every
 * attempt takes the longest an attempt can take and every call's attempts but the last time out, so
 * that every call takes its worst case. Answers come from the test, never from the network. Time
 * passes only by the attempts and the backoffs (timers), so parallel calls overlap as they do in AWS
 * and the test's own CPU time is not counted.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, jest } from '@jest/globals';
import { createDocumentClient, RETRY_POLICY, WORST_CASE_ATTEMPT_MS } from '../../shared/platform/dynamo/client.js';

/** What the slow DynamoDB answers a command (`Query`, `BatchGet`...) with, given its input. */
export type Answer = (command: string, input: Record<string, unknown>) => Record<string, unknown>;

/** The slow DynamoDB's client, and what it saw. */
export interface SlowDynamo {
  readonly client: DynamoDBDocumentClient;
  readonly seen: { attempts: number; calls: number; lastEnd: number };
}

/**
 * For each test of the file: fake timers (except those the promise machinery needs), and the metric
 * lines the slow calls' retries publish (`shared/platform/observability.ts`) kept off the terminal.
 */
export function useSlowDynamo(): void {
  const write = process.stdout.write.bind(process.stdout) as (...args: unknown[]) => boolean;
  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    jest
      .spyOn(process.stdout, 'write')
      .mockImplementation(
        ((chunk: unknown, ...rest: unknown[]) =>
          String(chunk).startsWith('{"_aws"') || write(chunk, ...rest)) as typeof process.stdout.write,
      );
  });
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });
}

/** A client of the service whose every call takes its worst case before `answer` answers it. */
export function slowDynamo(answer: Answer): SlowDynamo {
  const client = createDocumentClient({ region: 'eu-west-1' });
  const seen = { attempts: 0, calls: 0, lastEnd: 0 };
  client.middlewareStack.add(
    (_next, context) => {
      // One closure per call: the service's retries call back into the same one.
      let attempts = 0;
      seen.calls++;
      return async (args) => {
        attempts++;
        seen.attempts++;
        await new Promise((resolve) => setTimeout(resolve, WORST_CASE_ATTEMPT_MS));
        seen.lastEnd = Math.max(seen.lastEnd, Date.now());
        if (attempts < RETRY_POLICY.maxAttempts) throw Object.assign(new Error('request timed out'), { name: 'TimeoutError' });
        const command = (context.commandName ?? '').replace(/Command$/, '');
        return { output: { $metadata: {}, ...answer(command, args.input as Record<string, unknown>) }, response: {} };
      };
    },
    // Inside the service's `retrySafely` (same step, same priority, added later): every attempt passes here.
    { step: 'initialize', priority: 'low', name: 'slowDynamo' },
  );
  return { client, seen };
}

/**
 * Run `work` to its end on the fake clock, moving it from timer to timer.
 * @returns its outcome and the (fake) milliseconds it took
 */
export async function onFakeTime<T>(work: () => Promise<T>): Promise<{ outcome: Promise<T>; elapsed: number }> {
  const start = Date.now();
  let end: number | undefined;
  const outcome = work().finally(() => {
    end = Date.now();
  });
  outcome.catch(() => undefined);
  for (let step = 0; end === undefined; step++) {
    if (step > 100_000) throw new Error('the work never ended');
    await jest.advanceTimersToNextTimerAsync();
  }
  return { outcome, elapsed: end - start };
}
