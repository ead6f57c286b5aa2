/**
 * A CDK context value that holds an object: `-c name='{"a":1}'` passes it as a JSON string,
 * `cdk.json` as an object. For `z.preprocess`: a string is parsed, anything else passes as it is.
 */
export function contextObject(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value; // refused by the schema as "expected object"
  }
}
