import * as z from 'zod/mini';
export const s = z.object({ a: z.string().check(z.uuid()), b: z.optional(z.number()) });
console.log(s.parse({ a: 'x' }));
