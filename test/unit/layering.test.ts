/**
 * The layers of `shared/` beyond what ESLint's import rules say file by file (eslint.config.js):
 * no folder imports another in a circle at run time (type-only imports are erased, so they close
 * none), and the features' public surfaces (`index.ts`) hold only what other folders use.
 */
import { describe, expect, test } from '@jest/globals';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(import.meta.dirname, '../..');
const SHARED = join(ROOT, 'shared');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
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
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
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
      const target = normalize(join(dirname(file), specifier));
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
