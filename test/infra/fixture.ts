/**
 * The infra tests' stack: synthesized once per test file (beforeAll), without running esbuild
 * (`aws:cdk:bundling-stacks` empty: CDK skips asset bundling), so a synth takes about a second.
 * test/infra/bundle.test.ts bundles for real.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../infra/functions.js';
import type { ServiceStackProps } from '../../infra/stack-props.js';
import { ServiceStack } from '../../infra/stack.js';
import type { WorkerDefinition } from '../../shared/platform/worker.js';
import type { TableName } from '../../shared/tables.js';

export const TEST_IDENTITY = {
  issuer: 'https://idp.example.com/',
  audience: 'gsts-admins',
  jwksUrl: 'https://idp.example.com/.well-known/jwks.json',
} as const;

export interface Synthesized {
  readonly app: App;
  readonly stack: ServiceStack;
  readonly template: Template;
  /** The template as JSON. */
  readonly json: { Resources: Record<string, CfnResource>; Outputs?: Record<string, { Value: unknown }> };
}

export interface CfnResource {
  readonly Type: string;
  readonly Properties: Record<string, any>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
}

/**
 * The context of cdk.json (CDK's feature flags): the CLI hands it to the app, so the tests do too,
 * and assert the stack a deploy would produce.
 */
export const CDK_JSON_CONTEXT = (
  JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> }
).context;

/** A CDK app as the CLI would start it (cdk.json's context), plus `context`. */
export function cdkApp(context: Record<string, unknown> = {}): App {
  return new App({ context: { ...CDK_JSON_CONTEXT, ...context } });
}

/**
 * A worker's code for a synth without bundling: `functions/<name>.ts`, or, while its handler is
 * still being written (the webhook workers: their `functions/` files come with their handlers), its
 * declaration module, the file that will export the handler. Only the path is read here.
 */
export function workerEntry(worker: WorkerDefinition): string {
  const entry = join(PROJECT_ROOT, 'functions', `${worker.function}.ts`);
  return existsSync(entry) ? entry : join(PROJECT_ROOT, 'shared', 'webhooks', 'workers', `${worker.function}.ts`);
}

/**
 * Run `synth` (making functions that CDK bundles for real, as each is constructed) without CDK's
 * "Bundling asset <path>..." line per function: CDK writes it to stderr unconditionally
 * (`AssetStaging`), one line per function in a passing run. Anything else written meanwhile
 * (esbuild's warnings, a failure) still shows.
 */
export function withoutBundlingLines<T>(synth: () => T): T {
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) =>
    (typeof chunk === 'string' && /^Bundling asset \S+\.\.\.\n?$/.test(chunk)) ||
    (write as (...args: unknown[]) => boolean).call(process.stderr, chunk, ...rest)) as typeof process.stderr.write;
  try {
    return synth();
  } finally {
    process.stderr.write = write;
  }
}

/** Build and synthesize the service stack. */
export function synthesize(props: Partial<ServiceStackProps> = {}, options: { bundle?: boolean } = {}): Synthesized {
  const app = cdkApp(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] });
  // CDK bundles each function as its construct is made.
  const stack = withoutBundlingLines(
    () =>
      new ServiceStack(app, 'Test', {
        env: { account: '123456789012', region: 'eu-west-1' },
        identity: TEST_IDENTITY,
        ...(options.bundle ? {} : { workerEntry }),
        ...props,
      }),
  );
  const template = Template.fromStack(stack);
  return { app, stack, template, json: template.toJSON() as Synthesized['json'] };
}

/** The logical id of a construct's CloudFormation resource. */
export function logicalId(stack: ServiceStack, construct: { node: { defaultChild?: unknown } }): string {
  return stack.getLogicalId(construct.node.defaultChild as Parameters<ServiceStack['getLogicalId']>[0]);
}

/** Resources of one type, by logical id. */
export function resourcesOf(json: Synthesized['json'], type: string): [string, CfnResource][] {
  return Object.entries(json.Resources).filter(([, r]) => r.Type === type);
}

/** Every logical id a value refers to (Ref / Fn::GetAtt), anywhere inside it; pseudo parameters aside. */
export function referencedIds(value: unknown): Set<string> {
  const found = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (v && typeof v === 'object') {
      for (const [k, inner] of Object.entries(v)) {
        if (k === 'Ref' && typeof inner === 'string') {
          if (!inner.startsWith('AWS::')) found.add(inner);
        } else if (k === 'Fn::GetAtt' && Array.isArray(inner)) found.add(String(inner[0]));
        else walk(inner);
      }
    }
  };
  walk(value);
  return found;
}

/** A value that may be one item or a list, as a list (CloudFormation collapses single-item lists). */
export function asList<T>(value: T | T[] | undefined): T[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** Logical ids and resources of a synthesized stack's tables and functions, by their names in the tables and routes tables. */
export function lookups(s: () => Synthesized) {
  const tableId = (name: TableName) => logicalId(s().stack, s().stack.tables[name]);
  const fnId = (name: string) => logicalId(s().stack, s().stack.functions.functions.get(name)!);
  const fnResource = (name: string) => s().json.Resources[fnId(name)]!;
  return { tableId, fnId, fnResource };
}
