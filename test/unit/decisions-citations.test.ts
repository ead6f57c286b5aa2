/**
 * The decisions the code and the tests cite live in the repository: every `decisions.md` cited is
 * `docs/decisions.md`, and every section cited (`docs/decisions.md#rate-limits`) is one of its headings.
 */
import { describe, expect, test } from '@jest/globals';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DECISIONS = join(ROOT, 'docs', 'decisions.md');

/** The files that may cite decisions: sources, tests and the documents beside them. */
function citingFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return walk(path);
      return /\.(ts|md)$/.test(name) ? [path] : [];
    });
  const documents = ['README.md', 'SECURITY.md', 'BENCHMARKS.md'].map((name) => join(ROOT, name));
  const files = [...['shared', 'functions', 'infra', 'test', 'docs'].flatMap((dir) => walk(join(ROOT, dir))), ...documents];
  // This file names the patterns it looks for.
  return files.filter((file) => file !== fileURLToPath(import.meta.url));
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');
}

const anchors = new Set(
  readFileSync(DECISIONS, 'utf8')
    .split('\n')
    .filter((line) => /^#{2,3} /.test(line))
    .map((line) => anchorOf(line.replace(/^#+ /, ''))),
);

describe('citations of the decisions', () => {
  const citations = citingFiles().flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/([\w./-]*)decisions\.md(#[\w-]+)?/g)].map((m) => ({
      file: relative(ROOT, file),
      path: m[1]!,
      anchor: m[2]?.slice(1),
    })),
  );

  test('there are citations (the pattern finds them)', () => {
    expect(citations.length).toBeGreaterThan(10);
  });

  test('every one names docs/decisions.md (relative links within docs/ included)', () => {
    const stale = citations.filter(({ file, path }) => !(path.endsWith('docs/') || (file.startsWith('docs/') && path === '')));
    expect(stale).toEqual([]);
  });

  test('no informal citation is left: "(decisions: …)", "(decisions)", "docs/decisions" without the file', () => {
    const informal = citingFiles().flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => /(?<![\w/.#-])decisions(?=[:)])|docs\/decisions(?!\.md)/.test(line))
        .map((line) => `${relative(ROOT, file)}: ${line.trim()}`),
    );
    expect(informal).toEqual([]);
  });

  test('every section cited is a heading of docs/decisions.md', () => {
    expect(anchors.size).toBeGreaterThan(10);
    expect(citations.filter(({ anchor }) => anchor !== undefined && !anchors.has(anchor))).toEqual([]);
  });
});
