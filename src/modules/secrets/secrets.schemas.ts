// The secrets wire contract: metadata without values, create/update bodies, key rotation.
import { z } from 'zod';

export const secretKeySchema = z
  .string()
  .regex(/^[A-Z0-9_]+$/, 'must contain only A-Z, 0-9 and _')
  .max(255);
const expiresAtSchema = z.iso.datetime({ offset: true }).transform((s) => new Date(s));
const valueSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(64 * 1024);

export const secretMetaSchema = z.object({
  id: z.string(),
  key: z.string(),
  isActive: z.boolean(),
  isReserved: z.boolean(),
  lastUsedAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const keyParams = z.object({ key: z.string().min(1).max(255) });

export const createSecretSchema = z.object({
  key: secretKeySchema,
  value: valueSchema,
  isReserved: z.boolean().optional(),
  expiresAt: expiresAtSchema.optional(),
});

export const updateSecretSchema = z.object({
  value: valueSchema.optional(),
  isActive: z.boolean().optional(),
  isReserved: z.boolean().optional(),
  /** null clears the expiry. */
  expiresAt: expiresAtSchema.nullable().optional(),
});

export const outcomeSchema = z.object({ success: z.boolean(), message: z.string() });

/** Grace period limits (hours) and defaults of each rotatable key, as the reference platform. */
export const rotationBodySchema = (maxHours: number, defaultHours: number) =>
  z
    .object({ gracePeriodHours: z.number().int().min(0).max(maxHours).default(defaultHours) })
    // No body at all arrives as null.
    .nullish()
    .transform((body) => body ?? { gracePeriodHours: defaultHours });

export const rotatedApiKeySchema = outcomeSchema.extend({ apiKey: z.string(), oldKeyExpiresAt: z.string() });
export const rotatedAnonKeySchema = outcomeSchema.extend({ anonKey: z.string(), oldKeyExpiresAt: z.string() });
export const rotatedSigningKeySchema = outcomeSchema.extend({ keyId: z.string(), oldKeyExpiresAt: z.string() });
