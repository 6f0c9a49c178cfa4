// POST /api/database/advance/bulk-upsert (admin): multipart `file` (.csv or .json), `table`,
// `schema` (default public) and `upsertKey`; the file at most the storage file-size limit.
import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../core/errors.js';
import type { BulkUpsert, BulkUpsertInput } from './bulk-upsert.service.js';

const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];

const bulkUpsertResult = z.object({
  success: z.literal(true),
  message: z.string(),
  table: z.string(),
  rowsAffected: z.number().int(),
  totalRecords: z.number().int(),
  filename: z.string(),
});

const tooLarge = (maxBytes: number) =>
  new AppError('PAYLOAD_TOO_LARGE', `File too large. The limit is ${maxBytes} bytes.`, {
    nextActions: 'Split the rows into several smaller files.',
  });

/** Reads the multipart fields and the file (buffered: it is parsed as a whole). */
async function formOf(request: FastifyRequest, maxBytes: number): Promise<BulkUpsertInput> {
  const fields: Record<string, string> = {};
  let file: { filename: string; text: string } | undefined;
  for await (const part of request.parts({ limits: { fileSize: maxBytes, files: 1, fields: 10, parts: 12 } })) {
    if (part.type === 'file') {
      const bytes = await part.toBuffer();
      if (part.file.truncated) throw tooLarge(maxBytes);
      if (part.fieldname === 'file') file = { filename: part.filename, text: bytes.toString('utf8') };
    } else fields[part.fieldname] = String(part.value);
  }
  if (!file) {
    throw new AppError('VALIDATION_ERROR', 'File is required', {
      nextActions: 'Send the rows as the multipart field "file" (a .csv or .json file).',
    });
  }
  if (fields.table === undefined) {
    throw new AppError('VALIDATION_ERROR', 'table is required', {
      nextActions: 'Name the target table in the multipart field "table".',
    });
  }
  return {
    ...file,
    schema: fields.schema || 'public',
    table: fields.table,
    upsertKey: fields.upsertKey || undefined,
  };
}

export function bulkUpsertRoutes(bulkUpsert: BulkUpsert, maxBytes: number): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(multipart);
    app.post('/api/database/advance/bulk-upsert', {
      config: { access: 'admin' },
      schema: {
        tags: ['database'],
        summary: 'Insert or upsert rows from a .csv or .json file (multipart: file, table, schema?, upsertKey?)',
        security,
        response: { 200: bulkUpsertResult },
      },
      handler: async (request) => {
        try {
          return await bulkUpsert(await formOf(request, maxBytes));
        } catch (err) {
          if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(maxBytes);
          throw err;
        }
      },
    });
  };
}
