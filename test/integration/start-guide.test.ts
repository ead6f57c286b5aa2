/**
 * The lines `npm start` prints run verbatim: the real `npm start` script (tsx infra/local/start.ts)
 * on a free port with an absolute DATA_DIR whose path needs quoting, its printed command lines run
 * as printed by bash from another folder, in order (the lifecycle hands `$TOKEN` on). bash and curl
 * are what a reader pastes into; without either the file is skipped, with one line in the run's summary.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addFigures } from '../support/figures.js';
import { runNpmStart, type RunningNpmStart } from '../support/npm-start.js';
import { stopAll } from '../support/teardown.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const END = '<<<end of command>>>';

/** Whether `command` is on the PATH. */
function has(command: string): boolean {
  try {
    execFileSync('bash', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const missing = ['bash', 'curl'].filter((c) => !has(c));
if (missing.length > 0) {
  const reason = `the printed curl lines are not run: ${missing.join(' and ')} not on the PATH (install ${missing.join(' and ')} to run test/integration/start-guide.test.ts)`;
  addFigures({}, { startGuideSkipped: reason });
}
const withShell = missing.length === 0 ? describe : describe.skip;

/** The command lines of the printed text: indented, not a bare link, `\` continuations joined. */
function commandLines(printed: string): string[] {
  const commands: string[] = [];
  let open = false;
  for (const line of printed.split('\n')) {
    if (open) commands[commands.length - 1] += `\n${line}`;
    else if (/^ {2}\S/.test(line) && !/^ {2}https?:\/\//.test(line)) commands.push(line.trim());
    else continue;
    open = line.endsWith('\\');
  }
  return commands;
}

let service: RunningNpmStart | undefined;
let dataDir: string;
let printed = '';
withShell('the lines npm start prints', () => {
  beforeAll(async () => {
    // Absolute, outside the repository, with a space and a quote: every line must quote it.
    dataDir = join(mkdtempSync(join(tmpdir(), 'gsts-guide-')), "data dir's");
    // npm start's own DynamoDB (dynalite in the data folder), whichever backend this project's stacks use.
    service = await runNpmStart({ PORT: '0', DATA_DIR: dataDir });
    printed = service.printed;
  }, 60_000);
  afterAll(() =>
    stopAll(
      () => service?.stop(),
      () => dataDir && rmSync(join(dataDir, '..'), { recursive: true, force: true }),
    ),
  );

  test('printed with the absolute data folder, and no placeholder to fill in', () => {
    expect(printed).toContain(`Data folder: ${dataDir}`);
    expect(printed).not.toMatch(/<token>|require\('\.\//);
    // Every seeded demo user, the read-only ones included.
    expect(printed).toContain('(acme-admin, acme-member, acme-analyst, acme-viewer, globex-admin, tiny-admin)');
    // The backend it runs on (the default, with the way to switch), as the service reports it.
    expect(printed).toMatch(/^DynamoDB: dynalite \(in process, no network port\) {3}\(DYNAMODB_BACKEND=local for AWS's DynamoDB Local; /m);
  });

  /** The first delivery of `type` the development receiver shows, waiting up to `ms` for it. */
  const arrivedWithin = async (ms: number, type: string) => {
    for (const until = Date.now() + ms; ; await new Promise((done) => setTimeout(done, 200))) {
      const page = (await (await fetch(`${service!.baseUrl}/dev/webhooks?format=json`)).json()) as { deliveries: { type: string }[] };
      const found = page.deliveries.find((d) => d.type === type);
      if (found || Date.now() > until) return found;
    }
  };

  test('each command line runs verbatim with bash from another folder: register the receiver, mint, validate, consume, list keys, fresh token', async () => {
    const commands = commandLines(printed);
    expect(commands).toHaveLength(6);
    const script = ['set -e -o pipefail', ...commands.map((c) => `${c}\necho '${END}'`)].join('\n');
    const output = execFileSync('bash', ['-c', script], { cwd: tmpdir(), encoding: 'utf8', timeout: 60_000 });
    const [registered, token, validated, consumed, keys, jwt] = output.split(`${END}\n`).map((o) => o.trim());

    expect(JSON.parse(registered!)).toMatchObject({
      success: true,
      data: { org_id: 1, url: `${service!.baseUrl}/dev/webhooks/demo`, events: ['*'], secret: expect.stringMatching(/^whsec_/) },
    });
    expect(token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(JSON.parse(validated!)).toMatchObject({ success: true, data: { valid: true, status: 'active' } });
    expect(JSON.parse(consumed!)).toMatchObject({ success: true, data: { org_id: 1, game_id: 101 } });
    expect(JSON.parse(keys!)).toMatchObject({ success: true, data: expect.arrayContaining([expect.objectContaining({ org_id: 1 })]) });
    // The receiver registered first got the consumption as a signed delivery, verified with its secret.
    expect(await arrivedWithin(10_000, 'session.consumed')).toMatchObject({ verified: true, type: 'session.consumed' });
    // The fresh token works as an admin's bearer token.
    const listed = execFileSync(
      'bash',
      ['-c', `curl -s '${printed.match(/'(http[^']*\?org_id=1)'/)![1]}' -H "Authorization: Bearer ${jwt}"`],
      {
        encoding: 'utf8',
      },
    );
    expect(JSON.parse(listed)).toMatchObject({ success: true });
  }, 60_000);

  test('the README’s lifecycle runs as written (against this service’s port and data folder)', () => {
    const [token, validated, consumed, ...rest] = runDocumented(
      shBlock('README.md', "## A session's lifecycle with curl"),
      service!.baseUrl,
    );
    expect(rest).toEqual([]);
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(validated!)).toMatchObject({ success: true, data: { valid: true, status: 'active' } });
    expect(JSON.parse(consumed!)).toMatchObject({ success: true, data: { org_id: 1, game_id: 101 } });
  }, 60_000);

  test('the admin example of docs/api.md acts on the key it creates, never on the seeded keys', () => {
    const before = listKeys();
    const block = shBlock('docs/api.md', '## Admin API') + shBlock('docs/api.md', '## Key rotation');
    const [listed, keyId, revoked, deleted, audit, rotated, ...rest] = runDocumented(block, service!.baseUrl);
    expect(rest).toEqual([]);
    expect(JSON.parse(listed!)).toMatchObject({ success: true });
    const id = Number(keyId);
    expect(before.map((k) => k.id)).not.toContain(id);
    expect(JSON.parse(revoked!)).toMatchObject({ success: true, data: { id, is_active: false } });
    expect(JSON.parse(deleted!)).toEqual({ success: true, data: { id, deleted: true } });
    expect(JSON.parse(audit!).data.records[0]).toMatchObject({ action: 'delete-key', actor: 'acme-admin' });
    expect(JSON.parse(rotated!)).toMatchObject({ success: true, data: { previous: { rotated_to: expect.any(Number) } } });
    // The seeded keys (the demo key, the demo MCP key) are exactly as they were.
    const after = listKeys();
    for (const seeded of before) expect(after).toContainEqual(seeded);
  }, 60_000);
});

/** Org 1's keys, through the admin API with the demo admin's token of the credentials file. */
function listKeys(): { id: number; name: string; is_active: boolean }[] {
  const jwt = JSON.parse(readFileSync(join(dataDir, 'dev-credentials.json'), 'utf8')).bearer_tokens['acme-admin'] as string;
  const answer = execFileSync('curl', ['-s', `${service!.baseUrl}/api/org-api-keys?org_id=1`, '-H', `Authorization: Bearer ${jwt}`], {
    encoding: 'utf8',
  });
  return (JSON.parse(answer).data as { id: number; name: string; is_active: boolean }[]).map(({ id, name, is_active }) => ({
    id,
    name,
    is_active,
  }));
}

/** The first `sh` block after the heading `heading` of a Markdown file of the repository. */
function shBlock(file: string, heading: string): string {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const at = text.indexOf(`\n${heading}\n`);
  const block = /```sh\n([\s\S]*?)```/.exec(text.slice(at));
  if (at < 0 || !block) throw new Error(`no sh block under ${heading} in ${file}`);
  return block[1]!;
}

/**
 * Run a documented block as a reader would, from the repository folder against `npm start`'s
 * defaults: the documents say `http://localhost:3000` and `.local`, this service runs elsewhere.
 * Each curl answer ends with a line break, so the output is one answer (or echoed value) a line.
 */
function runDocumented(block: string, baseUrl: string): string[] {
  // The documents' `./.local/` sits inside a quoted JavaScript string: a plain path stands for the data folder.
  const plain = join(dataDir, '..', 'data');
  if (!existsSync(plain)) symlinkSync(dataDir, plain);
  const script = block.replaceAll('http://localhost:3000', baseUrl).replaceAll('./.local/', `${plain}/`);
  const output = execFileSync('bash', ['-c', `set -e -o pipefail\ncurl() { command curl "$@"; echo; }\n${script}`], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return output.split('\n').filter((line) => line.trim() !== '');
}
