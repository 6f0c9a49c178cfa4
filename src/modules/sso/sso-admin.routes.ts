// Admin routes of SAML identity providers (GoTrue's /admin/sso/providers in camelCase); every
// write is audited by the request log's admin-write hook.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { SamlSignInService } from './saml-sign-in.service.js';
import type { SsoProvidersService } from './sso-providers.service.js';
import {
  providerCreateSchema,
  providerIdParams,
  providerListSchema,
  providerSchema,
  providerUpdateSchema,
  testResultSchema,
  testStartSchema,
} from './sso.schemas.js';

const tags = ['sso'];
const config = { access: 'admin' as const };
const security = [{ bearerAuth: [] }];

export function ssoAdminRoutes(providers: SsoProvidersService, signIn: SamlSignInService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/auth/sso/providers', {
      config,
      schema: { tags, summary: 'SAML identity providers', security, response: { 200: providerListSchema } },
      handler: () => providers.list(),
    });
    app.post('/api/auth/sso/providers', {
      config,
      schema: {
        tags,
        summary: 'Register a SAML identity provider from its metadata (URL or XML), with its email domains',
        security,
        body: providerCreateSchema,
        response: { 201: providerSchema },
      },
      handler: async (request, reply) => reply.code(201).send(await providers.create(request.body)),
    });
    app.get('/api/auth/sso/providers/:id', {
      config,
      schema: {
        tags,
        summary: 'A SAML identity provider',
        security,
        params: providerIdParams,
        response: { 200: providerSchema },
      },
      handler: (request) => providers.get(request.params.id),
    });
    app.put('/api/auth/sso/providers/:id', {
      config,
      schema: {
        tags,
        summary: 'Update a provider: new metadata (same entity id), name, domains or attribute mapping',
        security,
        params: providerIdParams,
        body: providerUpdateSchema,
        response: { 200: providerSchema },
      },
      handler: (request) => providers.update(request.params.id, request.body),
    });
    app.delete('/api/auth/sso/providers/:id', {
      config,
      schema: {
        tags,
        summary: 'Remove a provider (its users stay; their SSO identity no longer signs in)',
        security,
        params: providerIdParams,
        response: { 200: providerSchema },
      },
      handler: (request) => providers.remove(request.params.id),
    });

    app.post('/api/auth/sso/providers/:id/test', {
      config,
      schema: {
        tags,
        summary:
          "Start a test sign-in through a provider: the IdP URL to open; the answer is checked like a sign-in, signs nobody in, and the browser comes back to the console's page of the outcome",
        security,
        params: providerIdParams,
        response: { 200: testStartSchema },
      },
      handler: (request) => signIn.startTest(request.params.id),
    });
    app.get('/api/auth/sso/tests/:id', {
      config,
      schema: {
        tags,
        summary:
          "A test sign-in's outcome: pending, or what the assertion said (user, attributes), or why it was refused",
        security,
        params: providerIdParams,
        response: { 200: testResultSchema },
      },
      handler: (request) => signIn.testResult(request.params.id),
    });
  };
}
