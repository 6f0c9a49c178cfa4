// /storage/v1/bucket: Supabase's bucket API over Plinth's buckets (one table, storage.buckets).
// Reading takes any credential (Plinth's buckets are readable by every role); changes are the
// service key's (Plinth's API key) or an admin's, and so audited like every admin write.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../../core/errors.js';
import type { FullBucketRow, StorageService } from '../../storage/index.js';
import { bucketBody, bucketIdParams, bytesOf } from './storage.schemas.js';

const hide = true;
const client = { access: 'client' as const };
const admin = { access: 'admin' as const };

const toBucket = (b: FullBucketRow) => ({
  id: b.name,
  name: b.name,
  owner: b.owner ?? '',
  public: b.public,
  file_size_limit: b.file_size_limit === null ? null : Number(b.file_size_limit),
  allowed_mime_types: b.allowed_mime_types,
  created_at: b.created_at.toISOString(),
  updated_at: b.updated_at.toISOString(),
});

export function bucketRoutes(storage: StorageService): FastifyPluginAsyncZod {
  const find = async (id: string) => {
    const found = (await storage.bucketRows()).find((b) => b.name === id);
    if (!found) throw new AppError('STORAGE_NOT_FOUND', 'Bucket not found');
    return found;
  };

  return async (app) => {
    app.get('/storage/v1/bucket', {
      config: client,
      schema: { hide },
      handler: async () => (await storage.bucketRows()).map(toBucket),
    });

    app.get('/storage/v1/bucket/:id', {
      config: client,
      schema: { hide, params: bucketIdParams },
      handler: async (request) => toBucket(await find(request.params.id)),
    });

    app.post('/storage/v1/bucket', {
      config: admin,
      schema: { hide, body: bucketBody },
      handler: async (request) => {
        const { id, name, file_size_limit, allowed_mime_types } = request.body;
        const bucket = id ?? name;
        if (!bucket || (id && name && id !== name)) {
          throw new AppError('VALIDATION_ERROR', 'Send the bucket as id (a name, if sent, must equal it).');
        }
        await storage.createBucket(bucket, request.body.public ?? false, {
          fileSizeLimit: bytesOf(file_size_limit),
          allowedMimeTypes: allowed_mime_types ?? null,
        });
        return { name: bucket };
      },
    });

    app.put('/storage/v1/bucket/:id', {
      config: admin,
      schema: { hide, params: bucketIdParams, body: bucketBody },
      handler: async (request) => {
        const { id } = request.params;
        const current = await find(id);
        const { file_size_limit, allowed_mime_types } = request.body;
        await storage.updateBucket(id, request.body.public ?? current.public, {
          fileSizeLimit:
            file_size_limit === undefined ? (current.file_size_limit as number | null) : bytesOf(file_size_limit),
          allowedMimeTypes: allowed_mime_types === undefined ? current.allowed_mime_types : allowed_mime_types,
        });
        return { message: 'Successfully updated' };
      },
    });

    app.post('/storage/v1/bucket/:id/empty', {
      config: admin,
      schema: { hide, params: bucketIdParams },
      handler: async (request) => {
        await storage.emptyBucket(request.params.id);
        return { message: 'Successfully emptied' };
      },
    });

    app.delete('/storage/v1/bucket/:id', {
      config: admin,
      schema: { hide, params: bucketIdParams },
      handler: async (request) => {
        const { id } = request.params;
        await find(id);
        // As Supabase: a bucket is emptied first, never deleted with its objects.
        if (await storage.hasObjects(id)) {
          throw new AppError('CONFLICT', 'The bucket you tried to delete is not empty');
        }
        await storage.deleteBucket(id);
        return { message: 'Successfully deleted' };
      },
    });
  };
}
