// The wire contract of Sites: the reference platform's deployments API
// (packages/shared-schemas/src/deployments-api.schema.ts) and Plinth's additions (promote, logs,
// the site's settings). The CLI and tests import these.
import { z } from 'zod';

export const deploymentStatusSchema = z.enum([
  'WAITING',
  'UPLOADING',
  'QUEUED',
  'BUILDING',
  'READY',
  'ERROR',
  'CANCELED',
]);
export type DeploymentStatus = z.infer<typeof deploymentStatusSchema>;

/**
 * A relative file path with forward slashes: no empty, `.` or `..` segment, no NUL or backslash
 * (the reference's rule), and no control characters.
 */
export const deploymentFilePathSchema = z
  .string()
  .min(1, 'path is required')
  .max(2048, 'path is too long')
  .refine((value) => !value.includes('\0'), 'path cannot contain null bytes')
  .refine((value) => !value.includes('\\'), 'path must use forward slashes')
  .refine((value) => !value.startsWith('/'), 'path must be relative')
  .refine(
    (value) => value.split('/').every((part) => part !== '' && part !== '.' && part !== '..'),
    'path cannot contain empty, current, or parent directory segments',
  )
  .refine((value) => !/[\u0000-\u001f\u007f]/.test(value), 'path cannot contain control characters');

const shaSchema = z
  .string()
  .regex(/^[a-f0-9]{40}$/i, 'sha must be a SHA-1 hex digest')
  .transform((sha) => sha.toLowerCase());

export const manifestFileEntrySchema = z.object({
  path: deploymentFilePathSchema,
  sha: shaSchema,
  size: z.number().int().nonnegative(),
});

export const manifestFileSchema = z.object({
  path: z.string(),
  sha: z.string(),
  size: z.number(),
  fileId: z.uuid(),
  uploadedAt: z.string().nullable(),
});
export type ManifestFile = z.infer<typeof manifestFileSchema>;

export const createDirectDeploymentSchema = z
  .object({ files: z.array(manifestFileEntrySchema).min(1) })
  .superRefine(({ files }, ctx) => {
    const seen = new Set<string>();
    files.forEach((file, index) => {
      if (seen.has(file.path))
        ctx.addIssue({ code: 'custom', message: 'duplicate file path', path: ['files', index, 'path'] });
      seen.add(file.path);
    });
  });

export const createDirectDeploymentResponseSchema = z.object({
  id: z.uuid(),
  status: deploymentStatusSchema,
  /** The files the server does not hold yet: upload each to its fileId. */
  files: z.array(manifestFileSchema),
});

export const createDeploymentResponseSchema = z.object({
  id: z.uuid(),
  uploadUrl: z.string(),
  uploadFields: z.record(z.string(), z.string()),
});

const optionalText = z.string().max(4096).nullable().optional();
export const projectSettingsSchema = z.object({
  buildCommand: optionalText,
  outputDirectory: optionalText,
  installCommand: optionalText,
  devCommand: optionalText,
  rootDirectory: optionalText,
});
export type ProjectSettings = z.infer<typeof projectSettingsSchema>;

export const envVarSchema = z.object({
  key: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'key must be an environment variable name'),
  value: z.string().max(65_536),
});

export const startDeploymentSchema = z
  .object({
    projectSettings: projectSettingsSchema.optional(),
    envVars: z.array(envVarSchema).max(500).optional(),
    meta: z.record(z.string(), z.string()).optional(),
  })
  .default({});
export type StartDeployment = z.infer<typeof startDeploymentSchema>;

export const deploymentSchema = z.object({
  id: z.uuid(),
  providerDeploymentId: z.string().nullable(),
  provider: z.string(),
  status: deploymentStatusSchema,
  url: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Plinth: whether the site serves this deployment now. */
  live: z.boolean(),
});
export type Deployment = z.infer<typeof deploymentSchema>;

export const deploymentIdParams = z.object({ id: z.uuid() });
export const deploymentFileParams = z.object({ id: z.uuid(), fileId: z.uuid() });

export const listQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(50).catch(50),
  offset: z.coerce.number().int().min(0).default(0).catch(0),
});

export const deploymentLogsSchema = z.object({
  id: z.uuid(),
  status: deploymentStatusSchema,
  log: z.string().nullable(),
});

export const slugSchema = z
  .string()
  .trim()
  .min(3, 'slug must be at least 3 characters')
  .max(63, 'slug must be at most 63 characters')
  .regex(
    /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/,
    'slug must be lowercase alphanumeric with hyphens, not starting or ending with hyphen',
  );

export const updateSlugSchema = z.object({ slug: slugSchema.nullable() });
export const updateSlugResponseSchema = z.object({
  success: z.boolean(),
  slug: z.string().nullable(),
  domain: z.string().nullable(),
});

export const metadataResponseSchema = z.object({
  currentDeploymentId: z.uuid().nullable(),
  defaultDomainUrl: z.string().nullable(),
  customDomainUrl: z.string().nullable(),
});

export const domainSchema = z
  .string()
  .trim()
  .toLowerCase()
  .min(1, 'Domain is required')
  .max(253)
  .regex(
    /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,}$/i,
    'Invalid domain format (e.g. myapp.com or www.myapp.com)',
  );

export const customDomainSchema = z.object({
  domain: z.string(),
  apexDomain: z.string(),
  verified: z.boolean(),
  misconfigured: z.boolean(),
  verification: z.array(z.object({ type: z.string(), domain: z.string(), value: z.string() })),
  cnameTarget: z.string().nullable(),
  aRecordValue: z.string().nullable(),
});
export type CustomDomain = z.infer<typeof customDomainSchema>;

export const addDomainSchema = z.object({ domain: domainSchema });
export const domainParams = z.object({ domain: domainSchema });

export const siteSchema = z.object({
  slug: z.string(),
  url: z.string(),
  urls: z.array(z.string()),
  liveDeploymentId: z.uuid().nullable(),
  spaFallback: z.boolean(),
  retention: z.number().int(),
  buildsEnabled: z.boolean(),
  domains: z.array(z.string()),
});
export type Site = z.infer<typeof siteSchema>;

export const updateSiteSchema = z
  .object({
    spaFallback: z.boolean().optional(),
    retention: z.number().int().min(1).max(1000).optional(),
  })
  .strict();

export const messageSchema = z.object({ success: z.literal(true), message: z.string() });
