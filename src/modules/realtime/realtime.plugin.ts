// Wires the realtime module: the socket server on the app's own HTTP server (stopped before the
// HTTP server drains, so WebSockets never hold up a stop), message retention, the webhook
// delivery loop and the /api/realtime admin routes (channels, watched tables, deliveries).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { type AdminSessions, createCredentialResolver, type EndedSessions } from '../../http/principal.js';
import type { KeyedDeps } from '../secrets/index.js';
import type { RealtimeRefusals } from './realtime-refusals.js';
import { realtimeRoutes } from './realtime.routes.js';
import { startRetention } from './retention.js';
import { createRealtimeAdminService } from './realtime.service.js';
import { startSocketServer } from './socket-server.js';
import { watchedTablesRoutes } from './watched-tables.routes.js';
import { createWebhookWorker } from './webhook-worker.js';
import { webhooksRoutes } from './webhooks.routes.js';
import { createWebhooksService } from './webhooks.service.js';
import { createWatchedTablesService } from './watched-tables.service.js';

export function realtimePlugin(
  deps: KeyedDeps,
  ended: EndedSessions,
  sessionRevokedChannel: string,
  refusals: RealtimeRefusals,
  adminSessions?: AdminSessions,
): FastifyPluginAsyncZod {
  return async (app) => {
    const sockets = await startSocketServer(deps, app.server, {
      resolveCredential: createCredentialResolver(deps, ended, adminSessions),
      sessionRevokedChannel,
      refusals,
      onError: (err, what) => app.log.error({ err }, `realtime: ${what} failed`),
      onSlowClient: (socketId) => app.log.warn({ socketId }, 'realtime: a client too far behind was disconnected'),
    });
    app.addHook('preClose', () => sockets.close());
    const retention = startRetention(deps, (err) => app.log.error({ err }, 'realtime: purging old messages failed'));
    app.addHook('onClose', () => retention.close());
    await app.register(realtimeRoutes(createRealtimeAdminService(deps)));
    await app.register(watchedTablesRoutes(createWatchedTablesService(deps)));
    await app.register(webhooksRoutes(createWebhooksService(deps)));
    const webhooks = createWebhookWorker(deps, (err) => app.log.error({ err }, 'realtime: a webhook delivery failed'));
    await webhooks.start(deps.config.realtimeWebhookPollMs);
    app.addHook('onClose', () => webhooks.stop());
  };
}
