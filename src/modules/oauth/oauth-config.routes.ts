// Admin settings of OAuth providers, built-in and custom; client secrets are sealed with the
// keyring and never returned.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { OAuthConfigService } from './oauth-config.service.js';
import {
  customConfigCreateSchema,
  customConfigSchema,
  customConfigUpdateSchema,
  customKeySchema,
  listOf,
  oauthConfigCreateSchema,
  oauthConfigSchema,
  oauthConfigUpdateSchema,
  providerSchema,
} from './oauth.schemas.js';

const tags = ['oauth'];
const config = { access: 'admin' as const };
const security = [{ bearerAuth: [] }];
const deleted = z.object({ success: z.boolean(), message: z.string() });

export function oauthConfigRoutes(configs: OAuthConfigService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/auth/oauth/configs', {
      config,
      schema: {
        tags,
        summary: 'Configured built-in providers',
        security,
        response: { 200: listOf(oauthConfigSchema) },
      },
      handler: () => configs.list(),
    });

    app.post('/api/auth/oauth/configs', {
      config,
      schema: {
        tags,
        summary: 'Configure a built-in provider',
        security,
        body: oauthConfigCreateSchema,
        response: { 201: oauthConfigSchema },
      },
      handler: async (request, reply) => reply.code(201).send(await configs.create(request.body)),
    });

    const providerParams = z.object({ provider: providerSchema });

    app.get('/api/auth/oauth/:provider/config', {
      config,
      schema: {
        tags,
        summary: "A built-in provider's settings",
        security,
        params: providerParams,
        response: { 200: oauthConfigSchema },
      },
      handler: (request) => configs.find(request.params.provider),
    });

    app.put('/api/auth/oauth/:provider/config', {
      config,
      schema: {
        tags,
        summary: "Update a built-in provider's settings (omitted fields are kept)",
        security,
        params: providerParams,
        body: oauthConfigUpdateSchema,
        response: { 200: oauthConfigSchema },
      },
      handler: (request) => configs.update(request.params.provider, request.body),
    });

    app.delete('/api/auth/oauth/:provider/config', {
      config,
      schema: {
        tags,
        summary: "Remove a built-in provider's settings",
        security,
        params: providerParams,
        response: { 200: deleted },
      },
      handler: (request) => configs.remove(request.params.provider),
    });

    app.get('/api/auth/oauth/custom/configs', {
      config,
      schema: {
        tags,
        summary: 'Custom OpenID Connect providers',
        security,
        response: { 200: listOf(customConfigSchema) },
      },
      handler: () => configs.listCustom(),
    });

    app.post('/api/auth/oauth/custom/configs', {
      config,
      schema: {
        tags,
        summary: 'Add a custom OpenID Connect provider',
        security,
        body: customConfigCreateSchema,
        response: { 201: customConfigSchema },
      },
      handler: async (request, reply) => reply.code(201).send(await configs.createCustom(request.body)),
    });

    const keyParams = z.object({ key: customKeySchema });

    app.get('/api/auth/oauth/custom/:key/config', {
      config,
      schema: {
        tags,
        summary: "A custom provider's settings",
        security,
        params: keyParams,
        response: { 200: customConfigSchema },
      },
      handler: (request) => configs.findCustom(request.params.key),
    });

    app.put('/api/auth/oauth/custom/:key/config', {
      config,
      schema: {
        tags,
        summary: "Update a custom provider's settings (omitted fields are kept)",
        security,
        params: keyParams,
        body: customConfigUpdateSchema,
        response: { 200: customConfigSchema },
      },
      handler: (request) => configs.updateCustom(request.params.key, request.body),
    });

    app.delete('/api/auth/oauth/custom/:key/config', {
      config,
      schema: { tags, summary: 'Remove a custom provider', security, params: keyParams, response: { 200: deleted } },
      handler: (request) => configs.removeCustom(request.params.key),
    });
  };
}
