// zod for /storage/v1: the bodies storage-js sends (snake_case where Supabase's API is), as its
// 2.119 client sends them; unknown fields are ignored as storage-api ignores them.
import { z } from 'zod';
import { transformQuery } from '../../storage/index.js';

export const bucketIdParams = z.object({ id: z.string().min(1) });
export const objectPathParams = z.object({ bucket: z.string().min(1), '*': z.string() });
export const bucketParams = z.object({ bucket: z.string().min(1) });

/** Bytes, or a size with a unit as Supabase's dashboard writes it ('20MB'). */
const sizeLimit = z.union([z.number().int().positive(), z.string().regex(/^\d+\s*(b|kb|mb|gb)?$/i), z.null()]);

export const bucketBody = z.object({
  id: z.string().min(1).optional(),
  name: z.string().min(1).optional(),
  public: z.boolean().optional(),
  file_size_limit: sizeLimit.optional(),
  allowed_mime_types: z.array(z.string().min(1)).nullable().optional(),
});

export const listBody = z.object({
  prefix: z.string().default(''),
  limit: z.number().int().min(1).max(1000).default(100),
  offset: z.number().int().min(0).default(0),
  sortBy: z
    .object({
      column: z.enum(['name', 'created_at', 'updated_at', 'last_accessed_at']).default('name'),
      order: z.enum(['asc', 'desc', 'ASC', 'DESC']).default('asc'),
    })
    .optional(),
  search: z.string().default(''),
});

export const moveBody = z.object({
  bucketId: z.string().min(1),
  sourceKey: z.string().min(1),
  destinationKey: z.string().min(1),
  destinationBucket: z.string().min(1).optional(),
});

export const removeBody = z.object({ prefixes: z.array(z.string().min(1)).min(1).max(1000) });

const expiresIn = z.number().int().min(1);
/** createSignedUrl's body; `transform` makes it a signed URL of that transformed image only. */
export const signBody = z.object({ expiresIn, transform: transformQuery.optional() });
export const signManyBody = z.object({ expiresIn, paths: z.array(z.string().min(1)).min(1).max(1000) });
export const tokenQuery = z.object({ token: z.string().min(1) });

/** The byte count of a size limit; null for none. */
export function bytesOf(limit: z.infer<typeof sizeLimit> | undefined): number | null {
  if (limit === undefined || limit === null) return null;
  if (typeof limit === 'number') return limit;
  const [, digits, unit = 'b'] = /^(\d+)\s*(\w+)?$/.exec(limit)!;
  const scale = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[unit.toLowerCase() as 'b'];
  return Number(digits) * scale;
}
