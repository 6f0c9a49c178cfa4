// The wire contract of anonymous users and linked identities (docs/auth-anonymous-and-identities.md).
import { z } from 'zod';
import { emailSchema, passwordSchema, userSchema } from './auth.schemas.js';

export const identitySchema = z.object({
  /** "password" for the email+password identity, else the linked account's id (uuid). */
  id: z.string(),
  provider: z.string(),
  providerAccountId: z.string(),
  email: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const identitiesResponseSchema = z.object({ data: z.array(identitySchema) });

export const identityParamsSchema = z.object({
  identityId: z.union([z.literal('password'), z.uuid()], { message: 'must be "password" or an identity id (uuid)' }),
});

export const addEmailPasswordBodySchema = z.object({
  email: emailSchema,
  password: passwordSchema,
  redirectTo: z.url().max(2048).optional(),
});

export const convertedResponseSchema = z.object({
  user: userSchema,
  /** A new access token of the current session: its claims say what changed (is_anonymous). */
  accessToken: z.string(),
  requireEmailVerification: z.boolean(),
});

/** A finished OAuth link: the user (its providers now list the provider) and a new access token. */
export const linkedResponseSchema = z.object({ user: userSchema, accessToken: z.string() });

export const cleanupResponseSchema = z.object({
  deletedCount: z.number().int(),
  /** Inactive users kept because the app's rows still reference them (ON DELETE NO ACTION/RESTRICT). */
  skippedCount: z.number().int(),
});
