// Database backups over HTTP (all admin), as the reference platform routes them under
// /api/database/backups, plus GET /{id}/download for the archive itself.
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  archiveBytes,
  backupConfigSchema,
  backupConfigUpdateSchema,
  backupIdParams,
  backupListSchema,
  backupSchema,
  createBackupBody,
  importBackupQuery,
  messageSchema,
  renameBackupBody,
} from './backups.schemas.js';
import type { BackupsService } from './backups.service.js';

const tags = ['database'];
type Archive = Awaited<ReturnType<BackupsService['download']>>;

/** Streams the archive as an attachment (the reply is typed loosely: the body is bytes, not JSON). */
function sendArchive(reply: FastifyReply, { stream, fileName, size }: Archive) {
  if (size !== null) reply.header('content-length', size);
  return reply
    .header('content-type', 'application/gzip')
    .header('content-disposition', `attachment; filename="${fileName}"`)
    .send(stream);
}
const security = [{ bearerAuth: [] }];
/** Who made a backup: the admin's id, or "api-key". */
const creatorOf = (request: FastifyRequest) => (request.principal?.kind === 'admin' ? request.principal.subject : null);
const admin = { access: 'admin' as const };

export function backupsRoutes(backups: BackupsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/database/config', {
      config: admin,
      schema: { tags, summary: 'Scheduled backup settings', security, response: { 200: backupConfigSchema } },
      handler: () => backups.config(),
    });

    app.patch('/api/database/config', {
      config: admin,
      schema: {
        tags,
        summary: 'Change scheduled backups: enabled, cronSchedule (UTC, one literal minute), retentionDays',
        security,
        body: backupConfigUpdateSchema,
        response: { 200: backupConfigSchema },
      },
      handler: (request) => backups.updateConfig(request.body),
    });

    app.get('/api/database/backups', {
      config: admin,
      schema: { tags, summary: 'Every backup, newest first', security, response: { 200: backupListSchema } },
      handler: () => backups.list(),
    });

    app.post('/api/database/backups', {
      config: admin,
      schema: {
        tags,
        summary: 'Start a backup (a consistent snapshot, streamed to the blob store in the background)',
        security,
        body: createBackupBody,
        response: { 201: backupSchema },
      },
      handler: async (request, reply) => {
        return reply.code(201).send(await backups.create(request.body ?? undefined, creatorOf(request)));
      },
    });

    // The archive is the raw body, streamed to the blob store (any content type; the bytes are checked).
    await app.register(importRoute(backups));

    app.patch('/api/database/backups/:id', {
      config: admin,
      schema: {
        tags,
        summary: 'Rename a backup (null clears the name)',
        security,
        params: backupIdParams,
        body: renameBackupBody,
        response: { 200: backupSchema },
      },
      handler: (request) => backups.rename(request.params.id, request.body.name),
    });

    app.delete('/api/database/backups/:id', {
      config: admin,
      schema: {
        tags,
        summary: 'Delete a backup and its archive',
        security,
        params: backupIdParams,
        response: { 200: messageSchema },
      },
      handler: (request) => backups.remove(request.params.id),
    });

    app.get('/api/database/backups/:id/download', {
      config: admin,
      schema: {
        tags,
        summary: 'The backup archive (gzip of a line-framed SQL and COPY stream)',
        security,
        params: backupIdParams,
        response: { 200: archiveBytes },
      },
      handler: async (request, reply) => {
        return sendArchive(reply, await backups.download(request.params.id));
      },
    });

    app.post('/api/database/backups/:id/restore', {
      config: admin,
      schema: {
        tags,
        summary: 'Restore the project from a backup, in one transaction (synchronous)',
        security,
        params: backupIdParams,
        response: { 200: messageSchema },
      },
      handler: (request) => backups.restore(request.params.id),
    });
  };
}

/** The upload of an archive: its own scope, where the raw body is a stream (no other parser). */
function importRoute(backups: BackupsService): FastifyPluginAsyncZod {
  return async (upload) => {
    upload.removeAllContentTypeParsers();
    upload.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    upload.post('/api/database/backups/import', {
      config: admin,
      schema: {
        tags,
        summary: 'Upload an archive (the raw application/gzip body of a download) as a completed backup',
        description:
          'The archive is checked as it streams in; a damaged, truncated or foreign file (400), one without ' +
          "this project's valid signature (400, unless allowUnsigned=true) or one made by other platform " +
          'migrations (409) is refused and nothing is stored. Restore it with ' +
          'POST /api/database/backups/{id}/restore. The restore of an unsigned archive runs only the SQL ' +
          'admin SQL would run, and copies rows only into tables it created.',
        security,
        querystring: importBackupQuery,
        response: { 201: backupSchema },
      },
      handler: async (request, reply) => {
        const body = (request.body as Readable | undefined) ?? Readable.from([]);
        const { name, allowUnsigned } = request.query;
        const created = await backups.importArchive(body, { name, allowUnsigned }, creatorOf(request));
        return reply.code(201).send(created);
      },
    });
  };
}
