// Wires the AI module: seeds the provider key from the environment, then registers the provider
// key routes, the gateway routes (on the upstream client and the guards) and the admin routes.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { adminRoutes } from './admin.routes.js';
import { seedProviderKey } from './ai-key.js';
import { createCatalogService } from './catalog.service.js';
import { createGatewayConfigService } from './gateway-config.service.js';
import { gatewayRoutes } from './gateway.routes.js';
import { createGatewayService } from './gateway.service.js';
import { createGuards } from './guards.service.js';
import { providerKeyRoutes } from './key.routes.js';
import { createSettingsService } from './settings.service.js';
import { createUpstreamClients } from './upstream.js';

export function aiPlugin(deps: Deps): FastifyPluginAsyncZod {
  return async (app) => {
    await seedProviderKey(deps.sql, deps.keyring, 'openrouter', deps.config.openrouterApiKey);
    const clients = createUpstreamClients(deps);
    const guards = createGuards(deps.sql, deps.clock);
    const gateway = createGatewayService(clients, guards, (err, what) => app.log.error({ err }, `${what} failed`));
    const forgetKey = () => clients.forget();
    await app.register(providerKeyRoutes(deps, createGatewayConfigService(deps, forgetKey), forgetKey));
    await app.register(gatewayRoutes(gateway, deps.config.ai.maxCompletionTokens));
    const catalog = createCatalogService(deps.config.ai.baseUrl, deps.clock);
    await app.register(adminRoutes(createSettingsService(deps.sql, deps.clock, guards), catalog));
  };
}
