// Wires the secrets module: the API/anon key service (following other servers' rotations for the
// app's lifetime), the secrets service, and the /api/secrets routes.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { KeyedDeps } from './platform-keys.js';
import { createAccessKeyService } from './access-keys.js';
import { secretsRoutes } from './secrets.routes.js';
import { createSecretsService } from './secrets.service.js';

export function secretsPlugin(deps: KeyedDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const accessKeys = createAccessKeyService(deps);
    await accessKeys.listen((err) => app.log.error({ err }, 'reloading the API/anon keys failed'));
    app.addHook('onClose', () => accessKeys.close());
    await app.register(secretsRoutes(createSecretsService(deps, accessKeys)));
  };
}
