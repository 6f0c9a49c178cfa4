// /api/docs (public): the topic index, a topic by type (fetch-docs) and SDK docs by feature and
// language (fetch-sdk-docs). The API reference page lives at /api/reference.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { DocsService } from './docs.service.js';
import { docAnswer, docIndex, docTypeParams, sdkDocParams } from './docs.schemas.js';

const tags = ['docs'];
const publicAccess = { access: 'public' as const };

export function docsRoutes(docs: DocsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/docs', {
      config: publicAccess,
      schema: { tags, summary: 'The agent docs topics and where to read each', response: { 200: docIndex } },
      handler: async () => docs.index(),
    });

    app.get('/api/docs/:topic', {
      config: publicAccess,
      schema: {
        tags,
        summary: 'One docs topic as Markdown (instructions, db-sdk, auth-sdk, storage-sdk, …)',
        params: docTypeParams,
        response: { 200: docAnswer },
      },
      handler: (request) => docs.byType(request.params.topic),
    });

    app.get('/api/docs/:topic/:language', {
      config: publicAccess,
      schema: {
        tags,
        summary: 'SDK docs of a feature (db, storage, functions, auth, ai, realtime, payments) in Markdown',
        params: sdkDocParams,
        response: { 200: docAnswer },
      },
      handler: (request) => docs.bySdk(request.params.topic, request.params.language),
    });
  };
}
