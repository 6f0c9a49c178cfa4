// The authentication wire contract: request and response schemas (the CLI and tests import them).
import { z } from 'zod';
import { parsePattern } from './redirect-allowlist.js';

export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email({ message: 'must be a valid email address' }).max(320));

export const passwordSchema = z.string().min(1, 'is required').max(1024, 'must be at most 1024 characters');

const jsonObject = z.record(z.string(), z.unknown());

export const clientTypeSchema = z.object({
  // Anything unrecognised is treated as a web client, as the reference client expects.
  client_type: z
    .string()
    .optional()
    .transform((v): ClientType => (v === 'mobile' || v === 'desktop' || v === 'server' ? v : 'web')),
});
export type ClientType = 'web' | 'mobile' | 'desktop' | 'server';

export const userSchema = z.object({
  id: z.uuid(),
  /** Null for an anonymous user until it adds an email (or links a provider that shares one). */
  email: z.string().nullable(),
  emailVerified: z.boolean(),
  providers: z.array(z.string()),
  profile: jsonObject,
  metadata: jsonObject,
  createdAt: z.string(),
  updatedAt: z.string(),
  isAnonymous: z.boolean(),
});
export type User = z.output<typeof userSchema>;

export const mfaRequirementSchema = z.object({
  required: z.boolean(),
  /** Verified TOTP factors ('totp') and passkeys ('webauthn'), each able to raise the session to aal2. */
  factors: z.array(z.object({ id: z.uuid(), type: z.enum(['totp', 'webauthn']), friendlyName: z.string() })),
});

export const sessionResponseSchema = z.object({
  user: userSchema,
  accessToken: z.string().nullable(),
  csrfToken: z.string().nullable().optional(),
  refreshToken: z.string().nullable().optional(),
  requireEmailVerification: z.boolean().optional(),
  /** MFA (issue 34): present when the user has verified factors; the session is aal1 until one is verified. */
  mfa: mfaRequirementSchema.optional(),
});

export const registerBodySchema = z.object({
  email: emailSchema,
  password: passwordSchema,
  name: z.string().trim().min(1).max(100).optional(),
  redirectTo: z.url().optional(),
  autoConfirm: z.boolean().optional(),
});

export const passwordSignInBodySchema = z.object({
  method: z.literal('password').nullish(),
  email: emailSchema,
  password: passwordSchema,
});

export const refreshBodySchema = z
  .object({ refreshToken: z.string().min(1).optional(), refresh_token: z.string().min(1).optional() })
  .nullish();

export const successSchema = z.object({ success: z.boolean(), message: z.string() });

export const currentSessionSchema = z.union([
  z.object({ user: userSchema.extend({ role: z.literal('authenticated') }) }),
  z.object({ projectAdmin: z.object({ subject: z.string(), username: z.string() }) }),
]);

export const profileSchema = z.object({ id: z.uuid(), profile: jsonObject });

const MAX_PROFILE_DEPTH = 32;

/** Whether a JSON value nests deeper than `max`, checked without recursion. */
function nestsDeeperThan(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [next, depth] = pending.pop()!;
    if (next === null || typeof next !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(next)) pending.push([child, depth + 1]);
  }
  return false;
}

// Serialising a pathologically nested body (JSON.stringify, PostgreSQL's jsonb parser) overflows
// the stack and would be a 500; no real profile needs more than a few levels.
export const profileUpdateBodySchema = z.object({
  profile: jsonObject.refine((p) => !nestsDeeperThan(p, MAX_PROFILE_DEPTH), {
    message: `must not nest deeper than ${MAX_PROFILE_DEPTH} levels`,
  }),
});

export const userIdParamsSchema = z.object({ userId: z.uuid({ message: 'must be a user id (uuid)' }) });

export const authConfigSchema = z.object({
  id: z.uuid(),
  requireEmailVerification: z.boolean(),
  passwordMinLength: z.number().int().min(4).max(128),
  requireNumber: z.boolean(),
  requireLowercase: z.boolean(),
  requireUppercase: z.boolean(),
  requireSpecialChar: z.boolean(),
  verifyEmailMethod: z.enum(['code', 'link']),
  resetPasswordMethod: z.enum(['code', 'link']),
  allowedRedirectUrls: z.array(z.string()),
  disableSignup: z.boolean(),
  // Anonymous users and linked identities (docs/auth-anonymous-and-identities.md).
  anonymousSignInsEnabled: z.boolean(),
  anonymousRetentionDays: z.number().int().min(1).max(3650),
  linkOAuthByEmail: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type AuthConfig = z.output<typeof authConfigSchema>;

export const authConfigUpdateSchema = authConfigSchema
  .omit({ id: true, createdAt: true, updatedAt: true })
  .extend({
    allowedRedirectUrls: z
      .array(
        z
          .string()
          .min(1)
          .max(2048)
          .refine((entry) => parsePattern(entry) !== undefined, {
            message:
              'must be an http(s) URL (a wildcard only as the first host label, e.g. https://*.example.com/cb) or a deep link such as myapp://callback',
          }),
      )
      .max(100),
  })
  .partial()
  .strict();

export const publicConfigSchema = authConfigSchema
  .omit({
    id: true,
    createdAt: true,
    updatedAt: true,
    allowedRedirectUrls: true,
    anonymousRetentionDays: true,
    linkOAuthByEmail: true,
  })
  .extend({ oAuthProviders: z.array(z.string()), customOAuthProviders: z.array(z.string()) });

export const listUsersQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(10),
  offset: z.coerce.number().int().min(0).default(0),
  search: z.string().trim().max(200).optional(),
  /** true: only anonymous users; false: only the others; absent: all. */
  anonymous: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional(),
});

export const listUsersResponseSchema = z.object({
  data: z.array(userSchema),
  pagination: z.object({ offset: z.number(), limit: z.number(), total: z.number() }),
});

export const deleteUsersBodySchema = z.object({ userIds: z.array(z.uuid()).min(1).max(1000) });

export const deleteUsersResponseSchema = z.object({ message: z.string(), deletedCount: z.number().int() });

export const adminSignInBodySchema = z
  .object({
    email: emailSchema.optional(),
    username: z.string().trim().toLowerCase().min(1).max(320).optional(),
    password: passwordSchema,
    /** MFA (issue 34): the admin's current TOTP code, when the project requires MFA for the admin. */
    totpCode: z.string().trim().min(1).max(32).optional(),
  })
  .refine((b) => b.email !== undefined || b.username !== undefined, {
    message: 'email (or username) is required',
    path: ['email'],
  });

export const adminSessionResponseSchema = z.object({
  projectAdmin: z.object({ subject: z.string(), username: z.string() }),
  accessToken: z.string(),
  csrfToken: z.string().nullable().optional(),
  refreshToken: z.string().nullable().optional(),
});

const sixDigits = z.string().regex(/^\d{6}$/, 'must be a 6-digit code');

export const otpSignInBodySchema = z.object({
  method: z.literal('otp'),
  email: emailSchema,
  otp: sixDigits,
  name: z.string().trim().min(1).max(100).optional(),
});

export const signInBodySchema = z.discriminatedUnion('method', [otpSignInBodySchema, passwordSignInBodySchema]);

export const emailOnlyBodySchema = z.object({ email: emailSchema });

export const emailWithRedirectBodySchema = z.object({ email: emailSchema, redirectTo: z.url().max(2048).optional() });

export const verifyEmailBodySchema = z.object({ email: emailSchema, otp: sixDigits });

export const exchangeResetCodeBodySchema = z.object({ email: emailSchema, code: sixDigits });

export const exchangeResetCodeResponseSchema = z.object({ token: z.string(), expiresAt: z.string() });

export const resetPasswordBodySchema = z.object({ newPassword: passwordSchema, otp: z.string().min(1).max(256) });

export const linkTokenQuerySchema = z.object({ token: z.string().max(256) });

export const messageSchema = z.object({ message: z.string() });

export const userSessionSchema = z.object({
  id: z.uuid(),
  createdAt: z.string(),
  /** When its refresh token was last rotated (null: never refreshed). */
  refreshedAt: z.string().nullable(),
  expiresAt: z.string(),
});

export const userSessionsResponseSchema = z.object({ data: z.array(userSessionSchema) });

export const userSessionParamsSchema = userIdParamsSchema.extend({
  sessionId: z.uuid({ message: 'must be a session id (uuid)' }),
});

export const revokedSessionsResponseSchema = successSchema.extend({ revokedCount: z.number().int() });
