// The AI routes the official client calls: chat completion (JSON, or server-sent events with
// `stream: true`), image generation and embeddings. Any valid credential; the guards decide the rest.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../http/principal.js';
import {
  chatRequestSchema,
  chatResponseSchema,
  embeddingsRequestSchema,
  embeddingsResponseSchema,
  imageRequestSchema,
  imageResponseSchema,
} from './ai.schemas.js';
import type { GatewayService } from './gateway.service.js';
import { callerOf } from './guards.service.js';

const tags = ['ai'];
const config = { access: 'client' as const };
const security = [{ bearerAuth: [] }];

/** Aborted when the caller goes away before the answer is complete (cancels the upstream call). */
function abortOnClose(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.on('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

export function gatewayRoutes(gateway: GatewayService, maxCompletionTokens: number): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/ai/chat/completion', {
      config,
      schema: {
        tags,
        summary: 'Chat completion: JSON, or text/event-stream events when stream is true',
        security,
        body: chatRequestSchema(maxCompletionTokens),
        response: { 200: chatResponseSchema },
      },
      handler: async (request, reply) => {
        const caller = callerOf(principalOf(request));
        const signal = abortOnClose(reply);
        if (!request.body.stream) return gateway.chat(caller, request.body, signal);
        const events = await gateway.chatStream(caller, request.body, signal);
        return (
          reply
            .headers({
              'content-type': 'text/event-stream',
              'cache-control': 'no-cache',
              connection: 'keep-alive',
              'x-accel-buffering': 'no',
            })
            // A stream bypasses the JSON serializer; pipe() pulls the next event only when the
            // socket has room, so upstream reading follows the client's pace.
            .send(Readable.from(events, { objectMode: false }) as never)
        );
      },
    });

    app.post('/api/ai/image/generation', {
      config,
      schema: {
        tags,
        summary: 'Generate images from a prompt (and optional input images)',
        security,
        body: imageRequestSchema,
        response: { 200: imageResponseSchema },
      },
      handler: async (request, reply) =>
        gateway.generateImage(callerOf(principalOf(request)), request.body, abortOnClose(reply)),
    });

    app.post('/api/ai/embeddings', {
      config,
      schema: {
        tags,
        summary: 'Embeddings of one text or several',
        security,
        body: embeddingsRequestSchema,
        response: { 200: embeddingsResponseSchema },
      },
      handler: async (request, reply) =>
        gateway.embed(callerOf(principalOf(request)), request.body, abortOnClose(reply)),
    });
  };
}
