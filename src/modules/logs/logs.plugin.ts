// Wires logs into the app in two steps, like metrics: the request hooks and the writer go on the
// root instance before any module registers (so every route is logged), and the /api/logs route
// plugin is registered with the other modules; what functions print is recorded too.
// LOGS_STORE=false keeps the stdout line only.
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { logsRoutes } from './logs.routes.js';
import { createLogsService, type LogsService } from './logs.service.js';
import { logRequests } from './request-logging.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The logs service of this app (null with LOGS_STORE=false): flush, drops, maintenance. */
    logs: LogsService | null;
  }
}

export interface LoggingSetup {
  service: LogsService | null;
  /** The /api/logs routes (null when logs are not stored). */
  plugin: FastifyPluginAsyncZod | null;
}

/** Starts logging every request; the service is flushed when the app closes. */
export function installLogging(app: FastifyInstance, deps: Deps): LoggingSetup {
  const service = deps.config.logs.store
    ? createLogsService(deps, (err) => app.log.warn({ err }, 'storing log entries failed'))
    : null;
  logRequests(app, service, deps.clock);
  app.decorate('logs', service);
  if (!service) return { service, plugin: null };
  // The coming days' partitions and the retention, once at start (then hourly).
  app.addHook('onReady', async () => {
    await service.runMaintenance().catch((err) => app.log.warn({ err }, 'log partition maintenance failed'));
  });
  // What functions print, tagged with their invocation by the runtime.
  const stopHearingFunctions = deps.runtime.onOutput((output) => service.recordFunctionOutput(output));
  app.addHook('onClose', () => {
    stopHearingFunctions();
    return service.close();
  });
  return { service, plugin: logsRoutes(service) };
}
