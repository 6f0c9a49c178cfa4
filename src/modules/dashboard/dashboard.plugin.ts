// Registers the dashboard: @fastify/static (for sendFile only, no routes of its own) and the
// routes that serve the built single-page app from dist/dashboard.
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { defaultDashboardRoot } from './dashboard.files.js';
import { dashboardRoutes } from './dashboard.routes.js';

export interface DashboardOptions {
  /** The built app's folder; dist/dashboard unless a test points elsewhere. */
  root?: string;
}

export function dashboardPlugin(options: DashboardOptions = {}): FastifyPluginAsyncZod {
  const root = options.root ?? defaultDashboardRoot;
  return async (app) => {
    await app.register(fastifyStatic, { root, serve: false });
    await app.register(dashboardRoutes(root));
  };
}
