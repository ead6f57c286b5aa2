/**
 * Stands in for `@aws-lambda-powertools/jmespath` (and its `/functions`) in the Lambda bundles (an
 * esbuild alias set in `infra/functions.ts`). Powertools' idempotency utility evaluates the two
 * expressions the idempotency store configures (`shared/keys/idempotency-store.ts`): a
 * multiselect list of fields (`[namespace, scope, key]`) and one field (`payload`). The full
 * JMESPath interpreter is 20 KB of each function that takes an `Idempotency-Key`; this evaluates
 * exactly those two forms as JMESPath does (`test/unit/bundle-stand-ins.test.ts` compares it with
 * the real one), and refuses any other expression loudly.
 */

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A field of an object, as JMESPath reads it: null when absent or when `data` is no object. */
function field(data: unknown, name: string): unknown {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return null;
  return (data as Record<string, unknown>)[name] ?? null;
}

/** JMESPath `search` for a field (`payload`) or a multiselect list of fields (`[a, b, c]`). */
export function search(expression: string, data: unknown): unknown {
  const text = expression.trim();
  if (IDENTIFIER.test(text)) return field(data, text);
  const list = /^\[(.*)\]$/
    .exec(text)?.[1]
    ?.split(',')
    .map((part) => part.trim());
  if (list && list.every((name) => IDENTIFIER.test(name))) {
    return data === null || data === undefined ? null : list.map((name) => field(data, name));
  }
  throw new Error(`JMESPath expression not bundled: ${expression} (infra/bundle/jmespath.ts)`);
}

/** The custom functions Powertools registers by default; the expressions above call none. */
export class PowertoolsFunctions {}
