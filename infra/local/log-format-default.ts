/**
 * `npm start`'s log form when `LOG_FORMAT` says none: one short line a request in a terminal, the
 * JSON lines of AWS when its output goes to a pipe or a file. Imported first by `start.ts`, for its
 * effect: the logger reads `LOG_FORMAT` once, when its module loads (shared/platform/observability.ts),
 * and everything else (tests, the benchmark) keeps JSON.
 */
import process from 'node:process';

process.env.LOG_FORMAT ??= process.stdout.isTTY ? 'text' : 'json';
