// The OAuth wire contract: provider settings (secrets are write-only), initiation, callback and
// exchange, and native ID-token sign-in.
import { z } from 'zod';
import { BUILT_IN_PROVIDERS, isBuiltInProvider } from './providers.js';

export const providerSchema = z.enum(BUILT_IN_PROVIDERS);
export const customKeySchema = z
  .string()
  .regex(/^[a-z0-9_-]{1,64}$/, 'must be 1-64 lowercase letters, digits, _ or -')
  .refine((key) => !isBuiltInProvider(key), 'is the name of a built-in provider');

// Provider endpoints are fetched by the server or opened by browsers: http(s) only, never
// `javascript:`, `data:` or `ftp:` URLs that z.url() alone accepts.
const httpUrl = () => z.url({ protocol: /^https?$/ }).max(2048);
const endpoint = httpUrl().nullish();
const scopes = z.array(z.string().min(1).max(200)).max(50).nullish();

const builtInFields = {
  clientId: z.string().trim().min(1).max(255),
  clientSecret: z.string().min(1).max(8192).nullish(),
  scopes,
  redirectUri: endpoint,
  nativeClientIds: z.array(z.string().trim().min(1).max(255)).max(20),
  authorizationUrl: endpoint,
  tokenUrl: endpoint,
  userinfoUrl: endpoint,
  jwksUrl: endpoint,
  issuer: z.string().min(1).max(2048).nullish(),
};

export const oauthConfigCreateSchema = z
  .object({ provider: providerSchema, ...builtInFields, nativeClientIds: builtInFields.nativeClientIds.default([]) })
  .strict();
export const oauthConfigUpdateSchema = z.object(builtInFields).partial().strict();
export type OAuthConfigInput = z.output<typeof oauthConfigUpdateSchema>;

export const oauthConfigSchema = z.object({
  provider: providerSchema,
  clientId: z.string(),
  hasClientSecret: z.boolean(),
  scopes: z.array(z.string()).nullable(),
  redirectUri: z.string().nullable(),
  nativeClientIds: z.array(z.string()),
  authorizationUrl: z.string().nullable(),
  tokenUrl: z.string().nullable(),
  userinfoUrl: z.string().nullable(),
  jwksUrl: z.string().nullable(),
  issuer: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const customFields = {
  name: z.string().trim().min(1).max(100),
  discoveryEndpoint: httpUrl(),
  clientId: z.string().trim().min(1).max(255),
  clientSecret: z.string().min(1).max(8192),
  scopes,
};
export const customConfigCreateSchema = z.object({ key: customKeySchema, ...customFields }).strict();
export const customConfigUpdateSchema = z.object(customFields).partial().strict();
export type CustomConfigInput = z.output<typeof customConfigUpdateSchema>;

export const customConfigSchema = z.object({
  key: z.string(),
  name: z.string(),
  discoveryEndpoint: z.string(),
  clientId: z.string(),
  hasClientSecret: z.boolean(),
  scopes: z.array(z.string()).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const listOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), count: z.number().int() });

const pkceValue = z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/, 'must be 43-128 characters of [A-Za-z0-9._~-]');

/** Initiation: the app's redirect and PKCE challenge; any other string parameter is a hint. */
export const initiateQuerySchema = z
  .object({ redirect_uri: z.url().max(2048), code_challenge: pkceValue })
  .catchall(z.union([z.string(), z.array(z.string())]));

export const authUrlSchema = z.object({ authUrl: z.string() });

export const callbackSchema = z
  .object({
    code: z.string().max(4096).optional(),
    state: z.string().max(8192).optional(),
    error: z.string().max(1000).optional(),
    error_description: z.string().max(2000).optional(),
    id_token: z.string().max(16384).optional(),
    user: z.string().max(4096).optional(),
  })
  .catchall(z.unknown());

export const exchangeBodySchema = z.object({ code: z.string().min(1).max(256), code_verifier: pkceValue });

export const idTokenBodySchema = z.discriminatedUnion('provider', [
  z.object({
    provider: z.literal('google'),
    token: z.string().min(1).max(16384),
    name: z.string().trim().min(1).max(100).optional(),
  }),
  z
    .object({
      provider: z.literal('apple'),
      token: z.string().min(1).max(16384),
      nonce: z.string().trim().min(1).max(255),
      name: z.string().trim().min(1).max(100).optional(),
    })
    .strict(),
]);
