/**
 * zod's English messages, set once for the whole process. The runtime schemas use `zod/mini`
 * (tree-shakeable: some 65 KB less than classic zod in a function bundle), which, unlike
 * classic zod, loads no locale: without this, every issue would read "Invalid input" and the 400
 * messages (`external_ref: Too big: expected string to have <=255 characters`) would lose their rule.
 * Imported for its effect by `common.ts` (so by every schema module), `env.ts` and the parser
 * (`http/validation.ts`): it has run before any parse. The named import from `zod/locales` keeps English only (`z.locales` would pull in all of
 * them, some 260 KB).
 */
import { config } from 'zod/mini';
import { en } from 'zod/locales';

config(en());
