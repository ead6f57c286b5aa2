/**
 * `npm run openapi`: write the generated interface description to `docs/openapi.json` (committed,
 * so reviewers see interface changes in diffs; a test fails when it is stale).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildDocument } from '../shared/schemas/openapi.js';

/** Where the committed document lives. */
export const OPENAPI_FILE = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));

/** The file's exact text for a document. */
export function openApiFileText(document: unknown = buildDocument()): string {
  return JSON.stringify(document, null, 2) + '\n';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(OPENAPI_FILE, openApiFileText());
  console.log(`wrote ${OPENAPI_FILE}`);
}
