// Wires the insights module: the rollup loop (every server samples, one folds at a time) and the
// /api/insights routes. Realtime connections are this server's open WebSockets (Socket.IO's and
// Supabase's Phoenix sockets alike), counted at the HTTP server's upgrade.
import type { Server } from 'node:http';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { insightsRoutes } from './insights.routes.js';
import { createInsightsService } from './insights.service.js';
import { type Rollup, startRollup } from './rollup.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** This server's insights rollup: run() samples and folds now. */
    insights: Rollup;
  }
}

/** Entries reach the table within the writer's flush interval; a minute more covers a slow flush. */
const LATE_MARGIN_MS = 60_000;

/** The rollup loop of this server (app.ts decorates the app with it: tests fold on demand). */
export function startInsights(deps: Deps, server: Server, onError: (err: unknown) => void): Rollup {
  let open = 0;
  server.on('upgrade', (_request, socket) => {
    open++;
    socket.once('close', () => open--);
  });
  return startRollup({
    sql: deps.sql,
    clock: deps.clock,
    lateMs: deps.config.logs.flushIntervalMs + LATE_MARGIN_MS,
    connections: () => open,
    closeWithinMs: deps.config.shutdownGraceMs,
    onError,
  });
}

export function insightsPlugin(deps: Deps): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(insightsRoutes(createInsightsService(deps)));
  };
}
