// Admin access to the AI gateway's credentials: the provider key (GET answers {apiKey, maskedKey},
// PUT replaces it; rotation is for cloud-managed keys only) and GET/PUT /api/ai/config (masked).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import { gatewayConfigSchema, gatewayConfigUpdateSchema } from './ai.schemas.js';
import type { GatewayConfigService } from './gateway-config.service.js';
import { AI_PROVIDERS, maskKey, readProviderKey, storeProviderKey, type AiProvider } from './ai-key.js';

const tags = ['ai'];
const config = { access: 'admin' as const };
const security = [{ bearerAuth: [] }];
const params = z.object({ provider: z.string().max(64) });
const keyView = z.object({ apiKey: z.string(), maskedKey: z.string() });

function providerOf(name: string): AiProvider {
  if (!Object.hasOwn(AI_PROVIDERS, name)) {
    throw new AppError('VALIDATION_ERROR', `Unsupported AI provider: ${name}`, {
      nextActions: `Use one of: ${Object.keys(AI_PROVIDERS).join(', ')}.`,
    });
  }
  return name as AiProvider;
}

/** `onKeyChange`: told after a new key is stored, so the gateway stops using the old one. */
export function providerKeyRoutes(
  deps: Deps,
  gatewayConfig: GatewayConfigService,
  onKeyChange: () => void,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/ai/config', {
      config,
      schema: { tags, summary: "The gateway's credentials, masked", security, response: { 200: gatewayConfigSchema } },
      handler: () => gatewayConfig.view(),
    });

    app.put('/api/ai/config', {
      config,
      schema: {
        tags,
        summary: "Set the gateway's provider key and/or management key",
        security,
        body: gatewayConfigUpdateSchema,
        response: { 200: gatewayConfigSchema },
      },
      handler: (request) => gatewayConfig.update(request.body),
    });

    app.post('/api/ai/:provider/api-key/rotate', {
      config,
      schema: { tags, summary: 'Rotate a cloud-managed provider key (not available self-hosted)', security, params },
      handler: async (request) => {
        providerOf(request.params.provider);
        throw new AppError('VALIDATION_ERROR', 'Key rotation is only available for cloud-managed keys.', {
          nextActions: 'Store a new key with PUT /api/ai/config or PUT /api/ai/openrouter/api-key.',
        });
      },
    });

    app.get('/api/ai/:provider/api-key', {
      config,
      schema: { tags, summary: "The AI provider's active API key", security, params, response: { 200: keyView } },
      handler: async (request) => {
        const provider = providerOf(request.params.provider);
        const apiKey = await readProviderKey(deps.sql, deps.keyring, provider);
        if (apiKey === undefined) {
          throw new AppError('AI_INVALID_API_KEY', `${AI_PROVIDERS[provider].label} API key is not configured.`, {
            nextActions: `Set OPENROUTER_API_KEY or store one with PUT /api/ai/${provider}/api-key.`,
          });
        }
        return { apiKey, maskedKey: maskKey(apiKey) };
      },
    });

    app.put('/api/ai/:provider/api-key', {
      config,
      schema: {
        tags,
        summary: "Set the AI provider's API key",
        security,
        params,
        body: z.object({ apiKey: z.string().trim().min(1, 'must not be empty').max(4096) }),
        response: { 200: z.object({ success: z.boolean(), message: z.string(), maskedKey: z.string() }) },
      },
      handler: async (request) => {
        const provider = providerOf(request.params.provider);
        await storeProviderKey(deps.sql, deps.keyring, provider, request.body.apiKey, deps.clock.now());
        onKeyChange();
        return {
          success: true,
          message: `${AI_PROVIDERS[provider].label} API key has been updated successfully`,
          maskedKey: maskKey(request.body.apiKey),
        };
      },
    });
  };
}
