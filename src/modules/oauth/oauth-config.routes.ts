// Admin settings of OAuth providers, built-in and custom; client secrets are sealed with the
// keyring and never returned.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import * as repo from './oauth-config.repo.js';
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

const viewOf = ({ clientSecretCiphertext, ...rest }: repo.StoredOAuthConfig) => ({
  ...rest,
  hasClientSecret: clientSecretCiphertext !== null,
});
const customViewOf = ({ clientSecretCiphertext, ...rest }: repo.StoredCustomConfig) => ({
  ...rest,
  hasClientSecret: clientSecretCiphertext.length > 0,
});

const notConfigured = (what: string) =>
  new AppError('AUTH_OAUTH_CONFIG_NOT_FOUND', `${what} is not configured.`, {
    nextActions: 'Create it first with POST on the configs collection.',
  });

export function oauthConfigRoutes(deps: Deps): FastifyPluginAsyncZod {
  /** undefined keeps the stored secret, null removes it, a string replaces it (sealed). */
  const sealSecret = (secret: string | null | undefined) =>
    secret === undefined ? undefined : secret === null ? null : deps.keyring.seal(secret);

  return async (app) => {
    app.get('/api/auth/oauth/configs', {
      config,
      schema: {
        tags,
        summary: 'Configured built-in providers',
        security,
        response: { 200: listOf(oauthConfigSchema) },
      },
      handler: async () => {
        const rows = await repo.listOAuthConfigs(deps.sql);
        return { data: rows.map(viewOf), count: rows.length };
      },
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
      handler: async (request, reply) => {
        const { provider, clientSecret, ...rest } = request.body;
        const row = await repo.insertOAuthConfig(deps.sql, provider, {
          ...rest,
          clientSecretCiphertext: sealSecret(clientSecret),
        });
        if (!row) {
          throw new AppError('AUTH_OAUTH_CONFIG_EXISTS', `${provider} is already configured.`, {
            nextActions: `Update it with PUT /api/auth/oauth/${provider}/config.`,
          });
        }
        return reply.code(201).send(viewOf(row));
      },
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
      handler: async (request) => {
        const row = await repo.findOAuthConfig(deps.sql, request.params.provider);
        if (!row) throw notConfigured(request.params.provider);
        return viewOf(row);
      },
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
      handler: async (request) => {
        const { clientSecret, ...rest } = request.body;
        const changes = { ...rest, clientSecretCiphertext: sealSecret(clientSecret) };
        const row = await repo.updateOAuthConfig(deps.sql, request.params.provider, changes, deps.clock.now());
        if (!row) throw notConfigured(request.params.provider);
        return viewOf(row);
      },
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
      handler: async (request) => {
        if (!(await repo.deleteOAuthConfig(deps.sql, request.params.provider)))
          throw notConfigured(request.params.provider);
        return { success: true, message: `${request.params.provider} OAuth configuration deleted.` };
      },
    });

    app.get('/api/auth/oauth/custom/configs', {
      config,
      schema: {
        tags,
        summary: 'Custom OpenID Connect providers',
        security,
        response: { 200: listOf(customConfigSchema) },
      },
      handler: async () => {
        const rows = await repo.listCustomConfigs(deps.sql);
        return { data: rows.map(customViewOf), count: rows.length };
      },
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
      handler: async (request, reply) => {
        const { key, clientSecret, ...rest } = request.body;
        const row = await repo.insertCustomConfig(deps.sql, key, {
          ...rest,
          clientSecretCiphertext: deps.keyring.seal(clientSecret),
        });
        if (!row) {
          throw new AppError('AUTH_OAUTH_CONFIG_EXISTS', `A custom provider with key ${key} exists already.`, {
            nextActions: `Update it with PUT /api/auth/oauth/custom/${key}/config.`,
          });
        }
        return reply.code(201).send(customViewOf(row));
      },
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
      handler: async (request) => {
        const row = await repo.findCustomConfig(deps.sql, request.params.key);
        if (!row) throw notConfigured(`Custom provider ${request.params.key}`);
        return customViewOf(row);
      },
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
      handler: async (request) => {
        const { clientSecret, ...rest } = request.body;
        const changes = {
          ...rest,
          clientSecretCiphertext: clientSecret === undefined ? undefined : deps.keyring.seal(clientSecret),
        };
        const row = await repo.updateCustomConfig(deps.sql, request.params.key, changes, deps.clock.now());
        if (!row) throw notConfigured(`Custom provider ${request.params.key}`);
        return customViewOf(row);
      },
    });

    app.delete('/api/auth/oauth/custom/:key/config', {
      config,
      schema: { tags, summary: 'Remove a custom provider', security, params: keyParams, response: { 200: deleted } },
      handler: async (request) => {
        if (!(await repo.deleteCustomConfig(deps.sql, request.params.key))) {
          throw notConfigured(`Custom provider ${request.params.key}`);
        }
        return { success: true, message: `Custom provider ${request.params.key} deleted.` };
      },
    });
  };
}
