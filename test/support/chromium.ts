/**
 * The Chromium of the browser tier (`./browser.ts`) and the benchmark's browser phase, found on any
 * machine: the system's Chromium when the PATH has one, else the headless Chromium that `npm ci`
 * brings inside `@sparticuz/chromium` (a fresh machine's path; `BROWSER_TIER_CHROMIUM=packaged`
 * takes it even where the PATH has one, as CI does: `.ci/run`). When neither starts, the caller
 * gets the reason instead of a failure or a hang. No jest here: the benchmark runs outside it.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';

const run = promisify(execFile);
/** The repository, where the child resolves `@sparticuz/chromium`. */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Flags for either browser: no sandbox (containers, root), nothing that phones home. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** Names the system's Chromium (or Chrome) goes by on the PATH: Debian, Ubuntu, most other distributions. */
const SYSTEM_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];
/** Where macOS keeps them (not on the PATH). */
const MAC_APPS = ['/Applications/Chromium.app/Contents/MacOS/Chromium', '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome'];

/** A started browser, or why there is none. */
export type BrowserLaunch = { readonly browser: Browser; readonly source: string } | { readonly skipped: string };

/** The first executable called `name` on the PATH. */
function onPath(names: readonly string[]): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const name of names) {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return join(dir, name);
      } catch {
        // not here: the next folder
      }
    }
  }
  return undefined;
}

/**
 * Unpacks `@sparticuz/chromium` (into the temp folder, once) in a child process and returns the
 * executable's path. A child, because when unpacking fails the package's other unpack streams keep
 * running and would keep jest from exiting; the child is simply ended.
 */
async function packagedChromium(): Promise<string> {
  // Jest's workers start browsers at once: the package unpacks into one temp folder, and a worker
  // that finds the executable still being written by another fails with ETXTBSY. One unpacks at a time.
  const release = await unpackLock();
  try {
    return await unpackedChromium();
  } finally {
    release();
  }
}

/** The unpack lock's folder (made atomically by `mkdir`) and when a holder is presumed dead. */
const UNPACK_LOCK = join(tmpdir(), 'game-session-chromium-unpack.lock');
const UNPACK_LOCK_STALE_MS = 180_000;

/** Take the cross-process unpack lock, waiting for another holder; returns its release. */
async function unpackLock(): Promise<() => void> {
  for (;;) {
    try {
      mkdirSync(UNPACK_LOCK);
      return () => rmSync(UNPACK_LOCK, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A holder that died (a killed run) leaves the folder: older than any unpack, it is taken over.
      const age = Date.now() - (statSync(UNPACK_LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > UNPACK_LOCK_STALE_MS) rmSync(UNPACK_LOCK, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** Unpack (or find unpacked) the packaged Chromium in a child; its executable's path. */
async function unpackedChromium(): Promise<string> {
  const script =
    "const { default: c } = await import('@sparticuz/chromium');" +
    'c.executablePath().then((p) => { process.stdout.write(p); process.exit(0); },' +
    ' (e) => { process.stderr.write(String(e?.message ?? e)); process.exit(1); });';
  try {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, timeout: 120_000 });
    return stdout;
  } catch (error) {
    throw new Error((error as { stderr?: string }).stderr || firstLine(error));
  }
}

/** The first line of an error, for the skip reason. */
const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 200);

/**
 * Start Chromium: the system's if the PATH has one, else `@sparticuz/chromium`'s. Never throws:
 * when neither starts, the reason is returned. Outside jest too (the benchmark's browser phase).
 */
export async function startChromium(): Promise<BrowserLaunch> {
  const failures: string[] = [];
  const packagedOnly = process.env.BROWSER_TIER_CHROMIUM === 'packaged';
  const system = packagedOnly ? undefined : (onPath(SYSTEM_NAMES) ?? MAC_APPS.find((app) => existsSync(app)));
  const candidates: [string, () => Promise<string>][] = [
    ...(system ? [[`system Chromium (${system})`, async () => system] as [string, () => Promise<string>]] : []),
    ['@sparticuz/chromium', packagedChromium],
  ];
  for (const [source, executable] of candidates) {
    try {
      const browser = await chromium.launch({ executablePath: await executable(), args: CHROMIUM_ARGS, headless: true });
      return { browser, source };
    } catch (error) {
      failures.push(`${source}: ${firstLine(error)}`);
    }
  }
  const skipped =
    `browser tier skipped, no Chromium starts (${system || packagedOnly ? '' : 'none installed; '}${failures.join('; ')}); ` +
    'to enable it: apt-get install libnss3 (the library the packaged Chromium needs) or chromium (or your distribution’s ' +
    'packages of them) and run npm test again';
  return { skipped };
}
