// The /auth/v1 request shapes as auth-js sends them (unknown fields such as gotrue_meta_security
// and null code_challenge are accepted and ignored).
import { z } from 'zod';
import { emailSchema } from '../../auth/index.js';

const metadata = z.record(z.string(), z.unknown());
const password = z.string().min(1).max(1024);

export const redirectQuerySchema = z.object({ redirect_to: z.url().optional() });

export const signUpBodySchema = z.object({
  email: emailSchema.optional(),
  phone: z.string().optional(),
  password: password.optional(),
  data: metadata.optional(),
});

export const tokenQuerySchema = z.object({
  grant_type: z.enum(['password', 'refresh_token', 'pkce', 'id_token', 'web3']),
});

export const tokenBodySchema = z.object({
  email: emailSchema.optional(),
  phone: z.string().optional(),
  password: z.string().max(1024).optional(),
  refresh_token: z.string().max(512).optional(),
  auth_code: z.string().max(512).optional(),
  code_verifier: z.string().max(512).optional(),
});

export const updateUserBodySchema = z.object({
  email: z.string().optional(),
  phone: z.string().optional(),
  password: password.optional(),
  data: metadata.optional(),
  nonce: z.string().optional(),
});

export const logoutQuerySchema = z.object({ scope: z.enum(['global', 'local', 'others']).default('global') });

export const otpBodySchema = z.object({
  email: emailSchema.optional(),
  phone: z.string().optional(),
  create_user: z.boolean().default(true),
  data: metadata.optional(),
});

export const verifyBodySchema = z.object({
  type: z.enum(['signup', 'invite', 'magiclink', 'recovery', 'email_change', 'email', 'sms', 'phone_change']),
  email: emailSchema.optional(),
  phone: z.string().optional(),
  token: z.string().max(64).optional(),
  token_hash: z.string().max(512).optional(),
});

export const recoverBodySchema = z.object({ email: emailSchema });

export const adminCreateUserBodySchema = z.object({
  email: emailSchema.optional(),
  phone: z.string().optional(),
  password: password.optional(),
  email_confirm: z.boolean().optional(),
  user_metadata: metadata.optional(),
  app_metadata: metadata.optional(),
});

export const adminUpdateUserBodySchema = z.object({
  email: z.string().optional(),
  phone: z.string().optional(),
  password: password.optional(),
  user_metadata: metadata.optional(),
  app_metadata: metadata.optional(),
  email_confirm: z.boolean().optional(),
  ban_duration: z.string().optional(),
});

export const listUsersQuerySchema = z.object({
  page: z.coerce.number().int().min(1).max(100_000).catch(1),
  per_page: z.coerce.number().int().min(1).max(1000).catch(50),
});

export const userIdParamsSchema = z.object({ id: z.uuid() });

// auth-js spreads generateLink's options into the body (data, redirectTo) and sends redirect_to in the query.
export const generateLinkBodySchema = z.object({
  type: z.enum(['signup', 'invite', 'magiclink', 'recovery', 'email_change_current', 'email_change_new']),
  email: emailSchema,
  password: password.optional(),
  data: metadata.optional(),
  redirect_to: z.url().optional(),
  redirectTo: z.url().optional(),
  new_email: z.string().optional(),
});

export const inviteBodySchema = z.object({ email: emailSchema, data: metadata.optional() });

// The link in the email (GET /verify): what GoTrue's action_link carries.
export const verifyLinkQuerySchema = z.object({
  token: z.string().min(1).max(512),
  type: z.string().min(1).max(32),
  redirect_to: z.url().optional(),
});

export const authorizeQuerySchema = z.object({
  provider: z.string().min(1).max(100),
  redirect_to: z.url().optional(),
  code_challenge: z.string().min(43).max(128).optional(),
  code_challenge_method: z.string().optional(),
  scopes: z.string().optional(),
});

// MFA factors (auth.mfa.*): auth-js sends issuer/phone on enroll and its own params on challenge.
export const factorParamsSchema = z.object({ factorId: z.uuid({ message: 'must be a factor id (uuid)' }) });
export const enrollFactorBodySchema = z.object({
  factor_type: z.string().max(32),
  friendly_name: z.string().max(100).optional(),
  issuer: z.string().max(200).optional(),
  phone: z.string().optional(),
});
export const challengeFactorBodySchema = z.object({}).loose().optional();
export const verifyFactorBodySchema = z.object({
  challenge_id: z.uuid({ message: 'must be a challenge id (uuid)' }),
  code: z.string().max(16),
});

// signInWithSSO: by email domain or provider id; PKCE (code_challenge) is required here.
export const ssoBodySchema = z.object({
  domain: z.string().max(253).optional(),
  provider_id: z.uuid({ message: 'must be a provider id (uuid)' }).optional(),
  redirect_to: z.url().optional(),
  code_challenge: z.string().max(128).nullish(),
  code_challenge_method: z.string().max(10).nullish(),
  skip_http_redirect: z.boolean().optional(),
});
