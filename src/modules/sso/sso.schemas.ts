// The SAML single sign-on wire contract: identity providers as the admin registers and reads them
// (shaped like GoTrue's /admin/sso/providers, in camelCase), the sign-in start (GoTrue's POST /sso
// with skip_http_redirect) and the ACS form post.
import { z } from 'zod';

const domainSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(/^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/, 'must be a domain name such as example.com');

/** One claim's source, as GoTrue writes it: an attribute name, or names tried in order, or a default. */
const mappingKeySchema = z
  .object({
    name: z.string().min(1).max(512).optional(),
    names: z.array(z.string().min(1).max(512)).max(10).optional(),
    default: z.union([z.string().max(1024), z.number(), z.boolean()]).optional(),
  })
  .strict();
export const attributeMappingSchema = z
  .object({ keys: z.record(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/), mappingKeySchema) })
  .strict()
  .refine((m) => Object.keys(m.keys).length <= 50, 'at most 50 keys');
export type AttributeMapping = z.output<typeof attributeMappingSchema>;

const metadataUrl = z.url({ protocol: /^https?$/ }).max(2048);
const metadataXml = z
  .string()
  .min(1)
  .max(256 * 1024);
const domains = z.array(domainSchema).max(100);

export const providerCreateSchema = z
  .object({
    type: z.literal('saml').default('saml'),
    name: z.string().trim().min(1).max(100).optional(),
    metadataUrl: metadataUrl.optional(),
    metadataXml: metadataXml.optional(),
    domains: domains.default([]),
    attributeMapping: attributeMappingSchema.optional(),
  })
  .strict()
  .refine((b) => (b.metadataUrl === undefined) !== (b.metadataXml === undefined), {
    message: 'give exactly one of metadataUrl and metadataXml',
    path: ['metadataUrl'],
  });
export type ProviderCreate = z.output<typeof providerCreateSchema>;

export const providerUpdateSchema = z
  .object({
    name: z.string().trim().min(1).max(100).nullable().optional(),
    metadataUrl: metadataUrl.optional(),
    metadataXml: metadataXml.optional(),
    domains: domains.optional(),
    attributeMapping: attributeMappingSchema.optional(),
  })
  .strict()
  .refine((b) => b.metadataUrl === undefined || b.metadataXml === undefined, {
    message: 'give at most one of metadataUrl and metadataXml',
    path: ['metadataUrl'],
  });
export type ProviderUpdate = z.output<typeof providerUpdateSchema>;

export const providerIdParams = z.object({ id: z.uuid() });

export const providerSchema = z.object({
  id: z.string(),
  type: z.literal('saml'),
  name: z.string().nullable(),
  saml: z.object({
    entityId: z.string(),
    ssoUrl: z.string(),
    metadataUrl: z.string().nullable(),
    metadataXml: z.string(),
    attributeMapping: z.object({ keys: z.record(z.string(), z.unknown()) }),
  }),
  domains: z.array(z.object({ domain: z.string() })),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export const providerListSchema = z.object({ data: z.array(providerSchema), count: z.number().int() });

const pkceValue = z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/, 'must be 43-128 characters of [A-Za-z0-9._~-]');

/** Sign-in start: by email domain or provider id, with the app's redirect and PKCE challenge. */
export const ssoStartSchema = z
  .object({
    domain: domainSchema.optional(),
    provider_id: z.uuid().optional(),
    redirect_uri: z.url().max(2048),
    code_challenge: pkceValue,
    code_challenge_method: z.literal('s256').or(z.literal('S256')).optional(),
  })
  .strict()
  .refine((b) => (b.domain === undefined) !== (b.provider_id === undefined), {
    message: 'give exactly one of domain and provider_id',
    path: ['domain'],
  });
export const ssoUrlSchema = z.object({ url: z.string() });

/** The IdP's HTTP-POST binding: the browser posts these form fields to the ACS. */
export const acsBodySchema = z
  .object({
    SAMLResponse: z
      .string()
      .min(1)
      .max(512 * 1024),
    RelayState: z.string().max(80).optional(),
  })
  .catchall(z.unknown());

/** The admin's test sign-in: its id (for the outcome) and the IdP URL to open. */
export const testStartSchema = z.object({ id: z.uuid(), url: z.string() });

export const testResultSchema = z.object({
  id: z.uuid(),
  providerId: z.uuid(),
  /** 'pending' until the identity provider answers the ACS. */
  status: z.enum(['pending', 'passed', 'failed']),
  result: z
    .union([
      z.object({
        passed: z.literal(true),
        nameId: z.string(),
        email: z.string(),
        name: z.string().nullable(),
        /** The attribute mapping's keys as this assertion fills them. */
        mapped: z.record(z.string(), z.string().optional()),
        /** Every attribute the assertion carries. */
        attributes: z.record(z.string(), z.unknown()),
      }),
      z.object({ passed: z.literal(false), error: z.string(), message: z.string() }),
    ])
    .optional(),
});
