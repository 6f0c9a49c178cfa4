// Registers the authentication routes: users (and the admin's view of their sessions), sessions,
// admin sessions, configuration, rate-limit settings and the email flows (codes, verification, reset).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { KeyedDeps } from '../secrets/index.js';
import { adminSessionRoutes } from './admin-sessions.routes.js';
import { startAnonymousCleanup } from './anonymous-cleanup.js';
import { anonymousRoutes } from './anonymous.routes.js';
import { identityRoutes } from './identities.routes.js';
import type { AuthServices } from './auth-services.js';
import { configRoutes } from './config.routes.js';
import { createAuthConfigService, type OAuthProviderNames } from './config.service.js';
import { emailFlowRoutes } from './email-flows.routes.js';
import { mfaAdminRoutes } from './mfa-admin.routes.js';
import { mfaRoutes } from './mfa.routes.js';
import { passkeyAdminRoutes } from './passkeys-admin.routes.js';
import { passkeyRoutes } from './passkeys.routes.js';
import { rateLimitRoutes } from './rate-limits.routes.js';
import { createRateLimitSettingsService } from './rate-limits.service.js';
import { sessionRoutes } from './sessions.routes.js';
import { userSessionRoutes } from './user-sessions.routes.js';
import { userRoutes } from './users.routes.js';

export function authPlugin(
  deps: KeyedDeps,
  auth: AuthServices,
  oauthProviders: OAuthProviderNames,
): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(userRoutes(deps, auth));
    await app.register(userSessionRoutes(auth));
    await app.register(sessionRoutes(deps, auth));
    await app.register(adminSessionRoutes(deps, auth));
    await app.register(configRoutes(createAuthConfigService(deps, oauthProviders)));
    await app.register(rateLimitRoutes(createRateLimitSettingsService(deps)));
    await app.register(emailFlowRoutes(deps, auth));
    await app.register(mfaRoutes(deps, auth));
    await app.register(passkeyRoutes(deps, auth.passkeys, auth.passkeySignIn));
    await app.register(passkeyAdminRoutes(auth.passkeys));
    await app.register(mfaAdminRoutes(auth));
    await app.register(anonymousRoutes(deps, auth));
    await app.register(identityRoutes(auth));
    const cleanup = startAnonymousCleanup(auth.anonymous, (err) =>
      app.log.error({ err }, 'auth: removing inactive anonymous users failed'),
    );
    app.addHook('onClose', () => cleanup.close());
  };
}
