// The wire contract of multi-factor authentication: factors, challenges, verification, recovery
// codes, the admin's view of users' factors, the admin's own factors and the project MFA setting.
import { z } from 'zod';
import { sessionResponseSchema } from './auth.schemas.js';

export const factorSchema = z.object({
  id: z.uuid(),
  type: z.literal('totp'),
  friendlyName: z.string(),
  status: z.enum(['unverified', 'verified']),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const factorListSchema = z.object({
  data: z.array(factorSchema),
  /** The calling session's level, and the level it can reach (aal2 once a factor is verified). */
  currentLevel: z.enum(['aal1', 'aal2']).optional(),
  nextLevel: z.enum(['aal1', 'aal2']).optional(),
  recoveryCodesRemaining: z.number().int().optional(),
});

export const enrollBodySchema = z.object({
  factorType: z.literal('totp').default('totp'),
  friendlyName: z.string().trim().min(1).max(100).optional(),
});

export const enrollResponseSchema = factorSchema.extend({
  totp: z.object({ secret: z.string(), uri: z.string(), qrCode: z.string() }),
});

export const factorParamsSchema = z.object({ factorId: z.uuid({ message: 'must be a factor id (uuid)' }) });
export const userFactorParamsSchema = factorParamsSchema.extend({
  userId: z.uuid({ message: 'must be a user id (uuid)' }),
});

export const challengeResponseSchema = z.object({ id: z.uuid(), type: z.literal('totp'), expiresAt: z.string() });

const codeSchema = z.string().trim().min(1).max(32);

export const verifyBodySchema = z.object({ challengeId: z.uuid(), code: codeSchema });

export const verifiedSessionSchema = sessionResponseSchema.extend({
  /** Shown once, when a user's first factor is verified. */
  recoveryCodes: z.array(z.string()).optional(),
});

export const recoveryBodySchema = z.object({ code: codeSchema });
export const recoveryCodesSchema = z.object({ recoveryCodes: z.array(z.string()) });

export const removedSchema = z.object({ success: z.boolean(), message: z.string() });

/** `totpCode`, a name the audit log redacts (admin writes are audited with their bodies). */
export const adminVerifyBodySchema = z.object({ totpCode: codeSchema });

export const mfaSettingsSchema = z.object({ requireAdminMfa: z.boolean() });
