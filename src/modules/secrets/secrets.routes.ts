// /api/secrets: admin management of secrets (list without values, read one decrypted, create,
// update, soft delete; platform credentials are write-only) and rotation of the API key, the anon
// key and the access-token signing key.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  createSecretSchema,
  keyParams,
  outcomeSchema,
  rotatedAnonKeySchema,
  rotatedApiKeySchema,
  rotatedSigningKeySchema,
  rotationBodySchema,
  secretMetaSchema,
  updateSecretSchema,
} from './secrets.schemas.js';
import type { SecretsService } from './secrets.service.js';

const tags = ['secrets'];
const config = { access: 'admin' as const };
const security = [{ bearerAuth: [] }];

const rotationSchema = <B extends z.ZodType, R extends z.ZodType>(label: string, body: B, response: R) => ({
  tags,
  summary: `Rotate the ${label}; the old one keeps working until the grace period ends`,
  security,
  body,
  response: { 200: response },
});

export function secretsRoutes(secrets: SecretsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/secrets', {
      config,
      schema: {
        tags,
        summary: 'Every secret, without values (newest first)',
        security,
        response: { 200: z.object({ secrets: z.array(secretMetaSchema) }) },
      },
      handler: async () => ({ secrets: await secrets.list() }),
    });

    app.get('/api/secrets/:key', {
      config,
      schema: {
        tags,
        summary: 'An active secret, decrypted (platform credentials: 403, never shown)',
        security,
        params: keyParams,
        response: { 200: z.object({ key: z.string(), value: z.string() }) },
      },
      handler: async (request) => ({ key: request.params.key, value: await secrets.reveal(request.params.key) }),
    });

    app.post('/api/secrets', {
      config,
      schema: {
        tags,
        summary: 'Create a secret (or revive an inactive one of the same key)',
        security,
        body: createSecretSchema,
        response: { 201: outcomeSchema.extend({ id: z.string() }) },
      },
      handler: async (request, reply) => {
        const id = await secrets.create(request.body);
        return reply
          .code(201)
          .send({ success: true, message: `Secret ${request.body.key} has been created successfully`, id });
      },
    });

    app.put('/api/secrets/:key', {
      config,
      schema: {
        tags,
        summary: 'Update a secret',
        security,
        params: keyParams,
        body: updateSecretSchema,
        response: { 200: outcomeSchema },
      },
      handler: async (request) => {
        await secrets.update(request.params.key, request.body);
        return { success: true, message: `Secret ${request.params.key} has been updated successfully` };
      },
    });

    app.delete('/api/secrets/:key', {
      config,
      schema: {
        tags,
        summary: 'Deactivate a secret (soft delete)',
        security,
        params: keyParams,
        response: { 200: outcomeSchema },
      },
      handler: async (request) => {
        await secrets.deactivate(request.params.key);
        return { success: true, message: `Secret ${request.params.key} has been deleted successfully` };
      },
    });

    app.post('/api/secrets/api-key/rotate', {
      config,
      schema: rotationSchema('API key', rotationBodySchema(168, 24), rotatedApiKeySchema),
      handler: async (request) => {
        const { key, ...outcome } = await secrets.rotate('api', request.body.gracePeriodHours);
        return { ...outcome, apiKey: key };
      },
    });

    app.post('/api/secrets/anon-key/rotate', {
      config,
      schema: rotationSchema('anon key', rotationBodySchema(720, 168), rotatedAnonKeySchema),
      handler: async (request) => {
        const { key, ...outcome } = await secrets.rotate('anon', request.body.gracePeriodHours);
        return { ...outcome, anonKey: key };
      },
    });

    app.post('/api/secrets/signing-key/rotate', {
      config,
      schema: rotationSchema(
        'access-token signing key (the old public key stays in the JWKS)',
        rotationBodySchema(168, 24),
        rotatedSigningKeySchema,
      ),
      handler: async (request) => secrets.rotateSigningKey(request.body.gracePeriodHours),
    });
  };
}
