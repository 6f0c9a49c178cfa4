// /storage/v1/object: download (as the caller, or public), info, list (folder by folder), bulk
// remove, move and copy — each a call into Plinth's storage services in the caller's scope, so the
// policies on storage.objects decide here exactly as on /api/storage.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../../core/errors.js';
import type { Principal } from '../../../core/principal.js';
import { principalOf } from '../../../http/principal.js';
import {
  type FolderEntry,
  type FolderSortColumn,
  type ObjectOps,
  type ObjectRow,
  type StorageService,
  sendObject,
} from '../../storage/index.js';
import { bucketParams, listBody, moveBody, objectPathParams, removeBody } from './storage.schemas.js';

const hide = true;
const client = { access: 'client' as const };
const publicAccess = { access: 'public' as const };

/** Supabase's metadata object of a file. */
export const metadataOf = (o: {
  size: string | number | null;
  mime_type: string | null;
  etag: string | null;
  cache_control: string | null;
  updated_at: Date | null;
}) => ({
  eTag: `"${o.etag}"`,
  size: Number(o.size),
  mimetype: o.mime_type,
  cacheControl: o.cache_control ?? 'no-cache',
  lastModified: o.updated_at?.toISOString() ?? null,
  contentLength: Number(o.size),
  httpStatusCode: 200,
});

const toEntry = (e: FolderEntry) => ({
  name: e.name,
  id: e.id,
  updated_at: e.updated_at?.toISOString() ?? null,
  created_at: e.created_at?.toISOString() ?? null,
  last_accessed_at: e.updated_at?.toISOString() ?? null,
  metadata: e.id === null ? null : metadataOf(e),
});

const toInfo = (row: ObjectRow) => ({
  id: row.id,
  name: row.key,
  version: null,
  bucket_id: row.bucket,
  size: Number(row.size),
  content_type: row.mime_type,
  cache_control: row.cache_control ?? 'no-cache',
  etag: `"${row.etag}"`,
  metadata: {},
  last_modified: row.updated_at.toISOString(),
  created_at: row.created_at.toISOString(),
});

/** The folder a list prefix names: '' or a path ending with '/'. */
const folderOf = (prefix: string) => {
  const trimmed = prefix.replace(/^\/+/, '');
  return trimmed === '' || trimmed.endsWith('/') ? trimmed : `${trimmed}/`;
};

/** Sends an object's bytes with the Cache-Control its upload set. */
export function sendWithCaching(
  storage: StorageService,
  request: FastifyRequest,
  reply: FastifyReply,
  row: ObjectRow,
  principal: Principal | null,
) {
  reply.header('cache-control', row.cache_control ?? 'no-cache');
  return sendObject(storage, request, reply, row, principal);
}

export function objectRoutes(storage: StorageService, ops: ObjectOps): FastifyPluginAsyncZod {
  return async (app) => {
    for (const url of ['/storage/v1/object/:bucket/*', '/storage/v1/object/authenticated/:bucket/*']) {
      app.get(url, {
        config: client,
        schema: { hide, params: objectPathParams },
        handler: async (request, reply) => {
          const principal = principalOf(request);
          const row = await storage.head(request.params.bucket, request.params['*'], principal);
          return sendWithCaching(storage, request, reply, row, principal);
        },
      });
    }

    app.get('/storage/v1/object/public/:bucket/*', {
      config: publicAccess,
      schema: { hide, params: objectPathParams },
      handler: async (request, reply) => {
        const { bucket, '*': key } = request.params;
        if (!(await storage.bucketOf(bucket)).public) throw new AppError('STORAGE_NOT_FOUND', 'Bucket not found');
        // No credential: the anon role's policies (Plinth's public_read) decide.
        const row = await storage.head(bucket, key, null);
        return sendWithCaching(storage, request, reply, row, null);
      },
    });

    app.get('/storage/v1/object/info/:bucket/*', {
      config: client,
      schema: { hide, params: objectPathParams },
      handler: async (request) =>
        toInfo(await storage.head(request.params.bucket, request.params['*'], principalOf(request))),
    });

    app.post('/storage/v1/object/list/:bucket', {
      config: client,
      schema: { hide, params: bucketParams, body: listBody },
      handler: async (request) => {
        const { prefix, limit, offset, sortBy, search } = request.body;
        const column = sortBy?.column ?? 'name';
        const entries = await ops.listFolder(
          request.params.bucket,
          {
            folder: folderOf(prefix),
            search,
            limit,
            offset,
            sortBy: (column === 'last_accessed_at' ? 'updated_at' : column) as FolderSortColumn,
            order: sortBy?.order.toLowerCase() === 'desc' ? 'desc' : 'asc',
          },
          principalOf(request),
        );
        return entries.map(toEntry);
      },
    });

    app.delete('/storage/v1/object/:bucket', {
      config: client,
      schema: { hide, params: bucketParams, body: removeBody },
      handler: async (request) => {
        const { bucket } = request.params;
        await storage.bucketOf(bucket);
        const removed = await storage.remove(bucket, [...new Set(request.body.prefixes)], principalOf(request));
        return [...removed].map((name) => ({ name, bucket_id: bucket }));
      },
    });

    app.post('/storage/v1/object/move', {
      config: client,
      schema: { hide, body: moveBody },
      handler: async (request) => {
        const { bucketId, sourceKey, destinationKey, destinationBucket } = request.body;
        await ops.move(
          { bucket: bucketId, key: sourceKey },
          { bucket: destinationBucket ?? bucketId, key: destinationKey },
          principalOf(request),
        );
        return { message: 'Successfully moved' };
      },
    });

    app.post('/storage/v1/object/copy', {
      config: client,
      schema: { hide, body: moveBody },
      handler: async (request) => {
        const { bucketId, sourceKey, destinationKey, destinationBucket } = request.body;
        const to = { bucket: destinationBucket ?? bucketId, key: destinationKey };
        const upsert = request.headers['x-upsert'] === 'true';
        const row = await ops.copy({ bucket: bucketId, key: sourceKey }, to, principalOf(request), upsert);
        return { Id: row.id, Key: `${row.bucket}/${row.key}` };
      },
    });
  };
}
