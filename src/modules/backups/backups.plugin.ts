// Wires the backups module's routes to its service; `refreshSchema` reloads the records API's
// schema cache after a restore. It runs the scheduled-backup check; dumps still running when the
// app closes are awaited.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { backupsRoutes } from './backups.routes.js';
import { createBackupsService } from './backups.service.js';

export function backupsPlugin(deps: Deps, refreshSchema: () => Promise<unknown>): FastifyPluginAsyncZod {
  return async (app) => {
    const service = createBackupsService(deps, refreshSchema, (err) =>
      app.log.error({ err }, 'a backup failed and could not be recorded as failed'),
    );
    // Scheduled backups: this server checks every BACKUPS_POLL_MS whether one is due (0: never).
    const pollMs = deps.config.backups.pollMs;
    const timer =
      pollMs > 0
        ? setInterval(
            () => void service.tick().catch((err) => app.log.error({ err }, 'scheduled backup failed')),
            pollMs,
          )
        : null;
    timer?.unref();
    app.addHook('onClose', async () => {
      if (timer) clearInterval(timer);
      await service.settled();
    });
    await app.register(backupsRoutes(service));
  };
}
