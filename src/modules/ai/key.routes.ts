// Admin access to the AI gateway provider key: GET answers {apiKey, maskedKey}, PUT replaces it.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
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
export function providerKeyRoutes(deps: Deps, onKeyChange: () => void): FastifyPluginAsyncZod {
  return async (app) => {
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
        await storeProviderKey(deps.sql, deps.keyring, provider, request.body.apiKey);
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
