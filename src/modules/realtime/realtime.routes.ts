// /api/realtime: admin management of channel patterns, stored messages (list, delete, stats),
// the retention setting, and the policies that decide who may subscribe and publish.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  channelIdParams,
  channelSchema,
  configSchema,
  createChannelSchema,
  deletedCountSchema,
  listMessagesQuery,
  messageOnlySchema,
  messageSchema,
  permissionsSchema,
  statsQuery,
  statsSchema,
  updateChannelSchema,
} from './realtime.schemas.js';
import type { RealtimeAdminService } from './realtime.service.js';

const tags = ['realtime'];
const config = { access: 'admin' as const };
const security = [{ bearerAuth: [] }];

export function realtimeRoutes(realtime: RealtimeAdminService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/realtime/channels', {
      config,
      schema: {
        tags,
        summary: 'Every channel pattern, newest first',
        security,
        response: { 200: z.array(channelSchema) },
      },
      handler: () => realtime.listChannels(),
    });

    app.get('/api/realtime/channels/:id', {
      config,
      schema: {
        tags,
        summary: 'One channel pattern',
        security,
        params: channelIdParams,
        response: { 200: channelSchema },
      },
      handler: (request) => realtime.getChannel(request.params.id),
    });

    app.post('/api/realtime/channels', {
      config,
      schema: {
        tags,
        summary: 'Open channels matching a pattern (SQL LIKE, % wildcard)',
        security,
        body: createChannelSchema,
        response: { 201: channelSchema },
      },
      handler: async (request, reply) => reply.code(201).send(await realtime.createChannel(request.body)),
    });

    app.put('/api/realtime/channels/:id', {
      config,
      schema: {
        tags,
        summary: 'Change a channel pattern (absent fields keep their value)',
        security,
        params: channelIdParams,
        body: updateChannelSchema,
        response: { 200: channelSchema },
      },
      handler: (request) => realtime.updateChannel(request.params.id, request.body),
    });

    app.delete('/api/realtime/channels/:id', {
      config,
      schema: {
        tags,
        summary: 'Delete a channel pattern (its messages keep their channel name)',
        security,
        params: channelIdParams,
        response: { 200: messageOnlySchema },
      },
      handler: async (request) => {
        await realtime.deleteChannel(request.params.id);
        return { message: 'Channel deleted' };
      },
    });

    app.get('/api/realtime/messages', {
      config,
      schema: {
        tags,
        summary: 'Stored messages, newest first',
        security,
        querystring: listMessagesQuery,
        response: { 200: z.array(messageSchema) },
      },
      handler: (request) => realtime.listMessages(request.query),
    });

    app.delete('/api/realtime/messages', {
      config,
      schema: { tags, summary: 'Delete every stored message', security, response: { 200: deletedCountSchema } },
      handler: async () => ({ deleted: await realtime.deleteMessages() }),
    });

    app.get('/api/realtime/messages/stats', {
      config,
      schema: {
        tags,
        summary: 'Message counts, webhook delivery rate and the top events',
        security,
        querystring: statsQuery,
        response: { 200: statsSchema },
      },
      handler: (request) => realtime.stats(request.query),
    });

    app.get('/api/realtime/config', {
      config,
      schema: { tags, summary: 'How long messages are kept', security, response: { 200: configSchema } },
      handler: () => realtime.config(),
    });

    app.patch('/api/realtime/config', {
      config,
      schema: {
        tags,
        summary: 'Set how long messages are kept (null: forever)',
        security,
        body: configSchema,
        response: { 200: messageOnlySchema },
      },
      handler: async (request) => {
        await realtime.setRetentionDays(request.body.retentionDays);
        return { message: 'Retention config updated successfully' };
      },
    });

    app.get('/api/realtime/permissions', {
      config,
      schema: {
        tags,
        summary: 'Row-level security policies deciding subscribe (channels) and publish (messages)',
        security,
        response: { 200: permissionsSchema },
      },
      handler: () => realtime.permissions(),
    });
  };
}
