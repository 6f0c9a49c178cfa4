// Supabase Realtime on Plinth: the Phoenix WebSocket at /realtime/v1/websocket (on the realtime
// module's engine, found by the HTTP server; the realtime module registers first) and the REST
// broadcast. The WebSockets close before the HTTP server drains.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../../deps.js';
import { type RealtimeEngine, realtimeEngineOf } from '../../realtime/index.js';
import { broadcastRoutes } from './broadcast.routes.js';
import { startPhoenixServer } from './phoenix-server.js';
import { createBroadcastService } from './realtime.service.js';

export type CredentialResolverOf = RealtimeEngine['resolveCredential'];

export function supabaseRealtimePlugin(deps: Pick<Deps, 'sql' | 'config' | 'bus'>): FastifyPluginAsyncZod {
  return async (app) => {
    const engine = realtimeEngineOf(app.server);
    const phoenix = startPhoenixServer(engine, app.server, {
      onError: (err, what) => app.log.error({ err }, `supabase realtime: ${what} failed`),
      onSlowClient: (id) => app.log.warn({ id }, 'supabase realtime: a client too far behind was disconnected'),
    });
    app.addHook('preClose', () => phoenix.close());
    await app.register(broadcastRoutes(createBroadcastService(deps), engine.resolveCredential));
  };
}
