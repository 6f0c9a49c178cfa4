// The wire contract of the rate-limit settings (GET/PUT /api/auth/rate-limits).
import { z } from 'zod';
import { LIMIT_NAMES } from './rate-limits.js';

const limitName = z.enum(LIMIT_NAMES);
const WEEK = 7 * 24 * 60 * 60;

const setLimit = z.strictObject({
  name: limitName,
  max: z.number().int().min(1).max(1_000_000),
  windowSeconds: z.number().int().min(1).max(WEEK),
});
const resetLimit = z.strictObject({ name: limitName, reset: z.literal(true) });

export const rateLimitsUpdateSchema = z.strictObject({
  limits: z
    .array(z.union([setLimit, resetLimit]))
    .min(1)
    .max(LIMIT_NAMES.length)
    .refine((items) => new Set(items.map((i) => i.name)).size === items.length, {
      message: 'names a limit more than once',
    }),
});
export type RateLimitsUpdate = z.infer<typeof rateLimitsUpdateSchema>;

const limitWindow = z.object({ max: z.number().int(), windowSeconds: z.number().int() });

export const rateLimitsSchema = z.object({
  limits: z.array(
    limitWindow.extend({
      name: z.string(),
      description: z.string(),
      /** False while the default applies. */
      custom: z.boolean(),
      default: limitWindow,
      updatedAt: z.string().nullable(),
    }),
  ),
});
export type RateLimits = z.infer<typeof rateLimitsSchema>;
