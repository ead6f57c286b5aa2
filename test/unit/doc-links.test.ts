/**
 * Every relative link of the Markdown documents (README.md, SECURITY.md, BENCHMARKS.md and
 * docs/*.md) leads somewhere: the file exists and, when the link names an anchor, the target
 * Markdown file has a heading with that anchor (GitHub's rule: lower case, punctuation dropped,
 * spaces to hyphens, repeats numbered).
 *
 * Web links (`https://…`) are not fetched: the tests run offline (CI and a fresh clone need no
 * network, and a remote site's outage must not fail the build), so only what lives in this
 * repository is checked.
 */
import { describe, expect, test } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The documents at the root (besides docs/): the front door and the two the docs link to. */
const ROOT_DOCS = ['README.md', 'SECURITY.md', 'BENCHMARKS.md'];
const DOCS = [
  ...ROOT_DOCS,
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The Markdown outside fenced code blocks (a `[x](y)` in a code sample is not a link). */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '');
}

/** GitHub's anchors of a Markdown file's headings. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, text] of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = text!
      .replace(/`/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The relative link targets of a Markdown file (web links and mail are not checked here). */
function linksOf(markdown: string): string[] {
  const targets = [...prose(markdown).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

describe('documentation links', () => {
  test('the root documents and every docs/*.md file are checked', () => {
    for (const file of ROOT_DOCS) expect(existsSync(join(ROOT, file))).toBe(true);
    expect(DOCS).toEqual(expect.arrayContaining(ROOT_DOCS));
    expect(DOCS.length).toBeGreaterThan(1);
    // The link reader finds the README's links into docs/ (so an empty result cannot pass unnoticed).
    expect(linksOf(readFileSync(join(ROOT, 'README.md'), 'utf8')).some((l) => l.startsWith('docs/'))).toBe(true);
  });

  test.each(DOCS)('%s: every relative link and anchor resolves', (file) => {
    const markdown = readFileSync(join(ROOT, file), 'utf8');
    const broken: string[] = [];
    for (const link of linksOf(markdown)) {
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const target = path === '' ? join(ROOT, file) : resolve(dirname(join(ROOT, file)), decodeURIComponent(path));
      if (!existsSync(target)) broken.push(`${link} (no file ${relative(ROOT, target)})`);
      else if (anchor && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor))
        broken.push(`${link} (no heading)`);
    }
    expect(broken).toEqual([]);
  });

  test('the README is a front door: at most 200 lines, with the two quick-start commands', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
  });

  test.each(DOCS)('%s: tells readers to call operations (console, REST, MCP), never a store method of the code', (file) => {
    const markdown = readFileSync(join(ROOT, file), 'utf8');
    expect(markdown.match(/\b[A-Z]\w*Store\.\w+\(/g) ?? []).toEqual([]);
  });

  test('the anchor rule matches GitHub’s on the shapes the docs use', () => {
    expect([...anchorsOf('# Quick start\n## `npm start` & tests\n## Quick start\n```\n# not a heading\n```')]).toEqual([
      'quick-start',
      'npm-start--tests',
      'quick-start-1',
    ]);
  });
});
