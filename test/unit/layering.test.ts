/**
 * The layers of `shared/` beyond what ESLint's import rules say file by file (eslint.config.js):
 * no folder imports another in a circle at run time (type-only imports are erased, so they close
 * none), and the features' public surfaces (`index.ts`) hold only what other folders use. And no
 * file of `shared/`, `infra/` or `functions/` imports itself back through others at run time: a
 * circle of modules evaluates one of them half-initialized, which works until an import order
 * changes.
 */
import { describe, expect, test } from '@jest/globals';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(import.meta.dirname, '../..');
const SHARED = join(ROOT, 'shared');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** A file's relative imports that are still there at run time, each as the path of the file it names. */
function runtimeImports(file: string): { specifier: string; target: string }[] {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, kind);
  const found: { specifier: string; target: string }[] = [];
  for (const statement of source.statements) {
    if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) || !statement.moduleSpecifier) continue;
    const specifier = (statement.moduleSpecifier as ts.StringLiteral).text;
    if (!specifier.startsWith('.')) continue;
    const clause = ts.isImportDeclaration(statement) ? statement.importClause : undefined;
    const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
    const typeOnly = ts.isImportDeclaration(statement)
      ? Boolean(clause?.isTypeOnly || (clause && !clause.name && named && named.every((element) => element.isTypeOnly)))
      : statement.isTypeOnly;
    if (typeOnly) continue;
    const base = normalize(join(dirname(file), specifier)).replace(/\.js$/, '');
    const target = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((path) => existsSync(path)) ?? base;
    found.push({ specifier, target });
  }
  return found;
}

/** The node a file is in: its folder under shared/, or a file at the top (routes.ts, tables.ts) on its own. */
function nodeOf(path: string): string {
  const parts = relative(SHARED, path).split('/');
  return parts.length > 1 ? parts[0]! : parts[0]!.replace(/\.[jt]s$/, '');
}

/** Every runtime import between two nodes: [from, to, file, specifier]. */
function runtimeEdges(): [string, string, string, string][] {
  const edges: [string, string, string, string][] = [];
  for (const file of sourceFiles(SHARED)) {
    for (const { specifier, target } of runtimeImports(file)) {
      if (!target.startsWith(SHARED)) continue;
      const [from, to] = [nodeOf(file), nodeOf(target)];
      if (from !== to) edges.push([from, to, relative(ROOT, file), specifier]);
    }
  }
  return edges;
}

/** The circles of a graph, each as its nodes in order (the first again at the end). */
function cycles(edges: readonly [string, string, ...unknown[]][]): string[] {
  const next = new Map<string, Set<string>>();
  for (const [from, to] of edges) next.set(from, (next.get(from) ?? new Set()).add(to));
  const found = new Set<string>();
  const walk = (node: string, path: string[]): void => {
    for (const to of next.get(node) ?? []) {
      if (path.includes(to)) found.add([...path.slice(path.indexOf(to)), to].join(' -> '));
      else walk(to, [...path, to]);
    }
  };
  for (const node of next.keys()) walk(node, [node]);
  return [...found];
}

/**
 * The groups of files that import each other in a circle (the strongly connected components of more
 * than one file, Tarjan's algorithm: linear in the imports, where listing every circle is not).
 */
function circularGroups(edges: readonly (readonly [string, string])[]): string[][] {
  const next = new Map<string, string[]>();
  for (const [from, to] of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const groups: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (stack.includes(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    for (let member = stack.pop()!; ; member = stack.pop()!) {
      group.push(member);
      if (member === node) break;
    }
    if (group.length > 1) groups.push(group.sort());
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return groups;
}

describe('modules of shared/, infra/ and functions/', () => {
  test('no file imports itself back through others at run time', () => {
    const files = ['shared', 'infra', 'functions'].flatMap((dir) => sourceFiles(join(ROOT, dir)));
    const edges = files.flatMap((file) =>
      runtimeImports(file).map(({ target }) => [relative(ROOT, file), relative(ROOT, target)] as const),
    );
    expect(circularGroups(edges)).toEqual([]);
  });

  test('the circle finder finds a circle of files and leaves a chain alone (it is not vacuous)', () => {
    expect(
      circularGroups([
        ['a.ts', 'b.ts'],
        ['b.ts', 'a.ts'],
        ['c.ts', 'a.ts'],
        ['c.ts', 'd.ts'],
      ]),
    ).toEqual([['a.ts', 'b.ts']]);
  });
});

describe('the layers of shared/', () => {
  const edges = runtimeEdges();

  test('no two folders import each other in a circle at run time', () => {
    expect(cycles(edges)).toEqual([]);
  });

  test('the circle finder finds a circle (it is not vacuous)', () => {
    expect(
      cycles([
        ['a', 'b'],
        ['b', 'c'],
        ['c', 'a'],
      ]),
    ).toContain('a -> b -> c -> a');
  });

  test('platform imports no feature and no table of routes at run time', () => {
    expect(edges.filter(([from, to]) => from === 'platform' && to !== 'tables')).toEqual([]);
  });

  test('a feature imports another feature only through its index.ts', () => {
    const features = new Set(readdirSync(SHARED).filter((name) => statSync(join(SHARED, name)).isDirectory() && name !== 'platform'));
    const through = edges.filter(([from, to, , specifier]) => features.has(from) && features.has(to) && !specifier.endsWith('/index.js'));
    expect(through).toEqual([]);
  });
});
