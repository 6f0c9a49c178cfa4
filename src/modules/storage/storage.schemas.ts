// The storage wire contract (api-contract.md §4): parameters and bodies of the storage routes,
// and every answer they send on success. Response schemas strip unknown fields.
import { z } from 'zod';
import { transformQuery } from './image-params.js';

// ---- parameters and bodies

const bucketName = z.string().min(1).max(256);
export const bucketParams = z.object({ bucket: bucketName });
/** `*` is the object key (or, on POST, the key and the action's last segment). */
export const objectParams = z.object({ bucket: bucketName, '*': z.string().max(4096) });

export const createBucketBody = z.strictObject({ bucketName, isPublic: z.boolean().default(true) });
export const updateBucketBody = z.strictObject({ isPublic: z.boolean() });

export const listObjectsQuery = z.object({
  prefix: z.string().max(1024).optional(),
  search: z.string().max(1024).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).default(0),
});

/** A download; any transformation parameter (width, height, resize, quality, format) makes it an image transformation. */
export const downloadQuery = z.object({
  expires: z.coerce.number().int().optional(),
  token: z.string().max(128).optional(),
  v: z.string().optional(),
  ...transformQuery.shape,
});

export const expiresInQuery = z.object({ expiresIn: z.coerce.number().int().optional() });
/** The download strategy, optionally of a transformed image (a signed URL's signature covers it). */
export const downloadStrategyQuery = expiresInQuery.extend(transformQuery.shape);

export const deleteObjectsBody = z.strictObject({ keys: z.array(z.string().min(1).max(1024)).min(1).max(1000) });

export const uploadStrategyBody = z.object({
  filename: z.string().min(1).max(1024),
  contentType: z.string().max(255).optional(),
  size: z.number().int().min(0).optional(),
});

/** confirm-upload sends size (contentType?, etag?); the deprecated download-strategy may send expiresIn. */
export const objectActionBody = z
  .object({
    size: z.number().int().min(0).optional(),
    contentType: z.string().max(255).optional(),
    etag: z.string().max(256).optional(),
    expiresIn: z.coerce.number().int().optional(),
  })
  .nullish();

export const storageConfigBody = z.strictObject({ maxFileSizeMb: z.number().int().min(1).max(200) });

export const createAccessKeyBody = z.strictObject({ description: z.string().max(200).optional() });
export const accessKeyParams = z.object({ id: z.uuid() });

// ---- answers

/** An answer without a body (204, 304). */
export const noBody = z.undefined().describe('No body');

/** The bytes of an object, in its own content type (200, or 206 for a Range). */
export const objectBytes = {
  description: 'The object’s bytes, in its stored content type',
  content: { '*/*': { schema: z.string().meta({ format: 'binary' }) } },
};

export const bucketSchema = z.object({ name: z.string(), public: z.boolean(), createdAt: z.string() });
export const bucketListResponse = z.array(bucketSchema);

export const bucketCreatedResponse = z.object({
  message: z.string(),
  bucketName: z.string(),
  isPublic: z.boolean(),
  nextActions: z.string(),
});

export const bucketUpdatedResponse = z.object({
  message: z.string(),
  bucket: z.string(),
  isPublic: z.boolean(),
  nextActions: z.string(),
});

export const messageResponse = z.object({ message: z.string(), nextActions: z.string().optional() });

export const storedFileSchema = z.object({
  bucket: z.string(),
  key: z.string(),
  size: z.number(),
  mimeType: z.string(),
  uploadedAt: z.string(),
  url: z.string(),
});

export const objectListResponse = z.object({
  data: z.array(storedFileSchema),
  pagination: z.object({ offset: z.number(), limit: z.number(), total: z.number() }),
  nextActions: z.string(),
});

export const deleteObjectsResponse = z.object({
  results: z.array(z.object({ key: z.string(), status: z.enum(['deleted', 'notFound']) })),
});

export const uploadStrategyResponse = z.object({
  method: z.enum(['direct', 'presigned']),
  uploadUrl: z.string(),
  /** The presigned POST's form fields, sent before the file. */
  fields: z.record(z.string(), z.string()).optional(),
  key: z.string(),
  confirmRequired: z.boolean(),
  confirmUrl: z.string().optional(),
  expiresAt: z.string().optional(),
});

export const downloadStrategyResponse = z.object({
  method: z.enum(['direct', 'presigned']),
  url: z.string(),
  expiresAt: z.string().optional(),
});

/** POST …/objects/{key}/{action}: a stored file (confirm-upload) or a download strategy. */
export const objectActionResponse = z.union([storedFileSchema, downloadStrategyResponse]);

export const storageConfigResponse = z.object({
  id: z.string(),
  maxFileSizeMb: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const s3ConfigResponse = z.object({
  data: z.object({ endpoint: z.string(), region: z.string(), available: z.boolean() }),
});

export const accessKeySchema = z.object({
  id: z.string(),
  accessKeyId: z.string(),
  description: z.string().nullable(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});

export const createdAccessKeyResponse = accessKeySchema.extend({ secretAccessKey: z.string() });
export const accessKeyListResponse = z.array(accessKeySchema);
