/** The DynamoDB line of `npm start`'s guide: the engine it runs on, and how to switch only from the default. */
import { describe, expect, test } from '@jest/globals';
import { startGuide, type GuideInputs } from '../../infra/local/guide.js';

const inputs: GuideInputs = {
  baseUrl: 'http://localhost:3000',
  dataDir: '/tmp/data',
  playLink: 'http://localhost:3000/play/game/101?session_token=x',
  repoDir: '/repo',
  dynamoDescription: 'dynalite (in process, no network port)',
  dynamoBackend: 'dynalite',
};
const dynamoLine = (text: string) => text.split('\n').find((line) => line.startsWith('DynamoDB: '));

describe('the guide’s DynamoDB line', () => {
  test('on dynalite: the engine, and how to run on DynamoDB Local instead', () => {
    expect(dynamoLine(startGuide(inputs))).toBe(
      "DynamoDB: dynalite (in process, no network port)   (DYNAMODB_BACKEND=local for AWS's DynamoDB Local; docs/dynamodb-backends.md)",
    );
  });

  test.each([
    ['local', 'DynamoDB Local (Java, pid 42) at http://127.0.0.1:8000, its data under an access key id kept in the data folder'],
    ['endpoint', 'the DynamoDB at http://127.0.0.1:8000 (DYNAMODB_ENDPOINT)'],
  ] as const)('on %s: the engine and the docs, no hint to switch to what already runs', (dynamoBackend, dynamoDescription) => {
    expect(dynamoLine(startGuide({ ...inputs, dynamoBackend, dynamoDescription }))).toBe(
      `DynamoDB: ${dynamoDescription}   (docs/dynamodb-backends.md)`,
    );
  });
});
