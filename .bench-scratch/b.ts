import * as z from 'zod';
export const s = z.object({ a: z.string().uuid(), b: z.number().int().positive().optional() });
console.log(s.parse({ a: 'x' }));
