// Supabase's REST broadcast (anon, user or service key; the apikey header counts when
// Authorization is absent, see caller.ts), 202: POST /realtime/v1/api/broadcast
// ({messages}, channel.send() before a join) and /realtime/v1/api/broadcast/{topic}/events/{event}
// (channel.httpSend(); the body is the payload).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { supabaseCaller } from './caller.js';
import type { CredentialResolverOf } from './realtime.plugin.js';
import { broadcastBodySchema, topicEventParams, topicEventQuery } from './realtime.schemas.js';
import type { BroadcastService } from './realtime.service.js';

export function broadcastRoutes(service: BroadcastService, resolve: CredentialResolverOf): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/realtime/v1/api/broadcast', {
      config: { access: 'public' },
      schema: {
        tags: ['supabase'],
        summary: 'Broadcast messages to Supabase Realtime topics',
        security: [{ bearerAuth: [] }],
        body: broadcastBodySchema,
        response: { 202: z.null().describe('Accepted: the messages are on their way to the subscribers') },
      },
      handler: async (request, reply) => {
        await service.send(await supabaseCaller(request, resolve), request.body);
        return reply.code(202).send(null);
      },
    });

    app.post('/realtime/v1/api/broadcast/:topic/events/:event', {
      config: { access: 'public' },
      schema: {
        tags: ['supabase'],
        summary: 'Broadcast one message (the body is its payload) to a Supabase Realtime topic',
        security: [{ bearerAuth: [] }],
        params: topicEventParams,
        querystring: topicEventQuery,
        body: z.unknown(),
        response: { 202: z.null().describe('Accepted: the message is on its way to the subscribers') },
      },
      handler: async (request, reply) => {
        const { topic, event } = request.params;
        const isPrivate = request.query.private === 'true';
        await service.send(await supabaseCaller(request, resolve), {
          messages: [{ topic, event, payload: request.body ?? {}, private: isPrivate }],
        });
        return reply.code(202).send(null);
      },
    });
  };
}
