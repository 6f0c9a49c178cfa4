// Wires the secrets module: the API/anon key and signing-key services (following other servers'
// rotations for the app's lifetime), the secrets service, the /api/secrets routes, and the routes
// that hand the keys out (API/anon key under /api/metadata, JWKS).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { KeyedDeps } from './platform-keys.js';
import { createAccessKeyService } from './access-keys.js';
import { keyRoutes } from './keys.routes.js';
import { secretsRoutes } from './secrets.routes.js';
import { createSecretsService } from './secrets.service.js';
import { createSigningKeyService } from './signing-keys.js';

export function secretsPlugin(deps: KeyedDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const accessKeys = createAccessKeyService(deps);
    await accessKeys.listen((err) => app.log.error({ err }, 'reloading the API/anon keys failed'));
    app.addHook('onClose', () => accessKeys.close());
    const signingKeys = createSigningKeyService(deps);
    await signingKeys.listen((err) => app.log.error({ err }, 'reloading the signing keys failed'));
    app.addHook('onClose', () => signingKeys.close());
    await app.register(keyRoutes(deps));
    await app.register(secretsRoutes(createSecretsService(deps, accessKeys, signingKeys)));
  };
}
