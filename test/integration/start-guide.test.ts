/**
 * The lines `npm start` prints run verbatim: the real `npm start` script (tsx infra/local/start.ts)
 * on a free port with an absolute DATA_DIR whose path needs quoting, its printed command lines run
 * as printed by bash from another folder, in order (the lifecycle hands `$TOKEN` on). bash and curl
 * are what a reader pastes into; without either the file is skipped, with one line in the run's summary.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { addFigures } from '../support/figures.js';
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

let service: ChildProcess | undefined;
let dataDir: string;
let printed = '';
withShell('the lines npm start prints', () => {
  beforeAll(async () => {
    // Absolute, outside the repository, with a space and a quote: every line must quote it.
    dataDir = join(mkdtempSync(join(tmpdir(), 'gsts-guide-')), "data dir's");
    service = spawn(join(ROOT, 'node_modules/.bin/tsx'), ['infra/local/start.ts'], {
      cwd: ROOT,
      // npm start's own DynamoDB (dynalite in the data folder), whichever backend this project's stacks use.
      env: { ...withoutBackend(process.env), PORT: '0', DATA_DIR: dataDir, NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await new Promise<void>((ready, fail) => {
      service!.stdout!.on('data', (chunk: Buffer) => {
        printed += chunk.toString('utf8');
        if (printed.includes('Interface description')) ready();
      });
      service!.once('exit', (code) => fail(new Error(`npm start exited (${code}) before printing its guide:\n${printed}`)));
    });
  }, 60_000);
  afterAll(() =>
    stopAll(
      () => stopService(service),
      () => dataDir && rmSync(join(dataDir, '..'), { recursive: true, force: true }),
    ),
  );

  test('printed with the absolute data folder, and no placeholder to fill in', () => {
    expect(printed).toContain(`Data folder: ${dataDir}`);
    expect(printed).not.toMatch(/<token>|require\('\.\//);
  });

  test('each command line runs verbatim with bash from another folder: mint, validate, consume, list keys, fresh token', () => {
    const commands = commandLines(printed);
    expect(commands).toHaveLength(5);
    const script = ['set -e -o pipefail', ...commands.map((c) => `${c}\necho '${END}'`)].join('\n');
    const output = execFileSync('bash', ['-c', script], { cwd: tmpdir(), encoding: 'utf8', timeout: 60_000 });
    const [token, validated, consumed, keys, jwt] = output.split(`${END}\n`).map((o) => o.trim());

    expect(token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(JSON.parse(validated!)).toMatchObject({ success: true, data: { valid: true, status: 'active' } });
    expect(JSON.parse(consumed!)).toMatchObject({ success: true, data: { org_id: 1, game_id: 101 } });
    expect(JSON.parse(keys!)).toMatchObject({ success: true, data: expect.arrayContaining([expect.objectContaining({ org_id: 1 })]) });
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
});

/** The environment less the variables that pick a DynamoDB (the `*-local` projects set them). */
function withoutBackend(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { DYNAMODB_BACKEND: _b, DYNAMODB_ENDPOINT: _e, DYNAMODB_LOCAL_ENDPOINTS: _l, DYNAMODB_TABLE_PREFIX: _p, ...rest } = env;
  return rest;
}

/** End the service (SIGTERM: it closes its database and front) and wait for it to exit. */
function stopService(child: ChildProcess | undefined): Promise<void> | undefined {
  if (!child || child.exitCode !== null) return undefined;
  return new Promise<void>((done) => {
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}
