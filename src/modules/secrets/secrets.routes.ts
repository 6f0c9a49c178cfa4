// Admin management of secrets: list (no values), read one decrypted, create, update, soft
// delete, and rotation of the API and anon keys. Every write notifies `plinth_secrets`.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { withTx, type Queryable } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import type { AccessKeyService } from './access-keys.js';
import * as repo from './secrets.repo.js';
import {
  createSecretSchema,
  keyParams,
  outcomeSchema,
  rotationBodySchema,
  secretMetaSchema,
  updateSecretSchema,
} from './secrets.schemas.js';

const tags = ['secrets'];
const config = { access: 'admin' as const };
const security = [{ bearerAuth: [] }];

/** Names the platform gives retired keys; nobody else may create them. */
const rotatedApiKey = outcomeSchema.extend({ apiKey: z.string(), oldKeyExpiresAt: z.string() });
const rotatedAnonKey = outcomeSchema.extend({ anonKey: z.string(), oldKeyExpiresAt: z.string() });

const RETIRED_KEY = /^(API_KEY|ANON_KEY)_OLD_/;

const iso = (d: Date | null) => (d === null ? null : d.toISOString());
const viewOf = (m: repo.SecretMeta) => ({
  ...m,
  lastUsedAt: iso(m.lastUsedAt),
  expiresAt: iso(m.expiresAt),
  createdAt: m.createdAt.toISOString(),
  updatedAt: m.updatedAt.toISOString(),
});

const notFound = (key: string) =>
  new AppError('NOT_FOUND', `Secret not found: ${key}`, { nextActions: 'List the secrets with GET /api/secrets.' });

const reserved = (verb: 'update' | 'delete', key: string) =>
  new AppError('FORBIDDEN', `Cannot ${verb} reserved secret: ${key}`, {
    nextActions: 'Reserved secrets belong to the platform; the API and anon keys rotate through their rotate endpoints.',
  });

export function secretsRoutes(deps: Deps, accessKeys: AccessKeyService): FastifyPluginAsyncZod {
  /** Runs a write and its notification in one transaction, after checking the stored row. */
  const write = <T>(key: string, work: (tx: Queryable, meta: repo.SecretMeta | undefined) => Promise<T>) =>
    withTx(deps.sql, async (tx) => {
      const result = await work(tx, await repo.findSecretMeta(tx, key));
      await repo.notifySecretChange(tx, key);
      return result;
    });

  return async (app) => {
    app.get('/api/secrets', {
      config,
      schema: { tags, summary: 'Every secret, without values (newest first)', security, response: { 200: z.object({ secrets: z.array(secretMetaSchema) }) } },
      handler: async () => ({ secrets: (await repo.listSecrets(deps.sql)).map(viewOf) }),
    });

    app.get('/api/secrets/:key', {
      config,
      schema: {
        tags,
        summary: 'An active secret, decrypted',
        security,
        params: keyParams,
        response: { 200: z.object({ key: z.string(), value: z.string() }) },
      },
      handler: async (request) => {
        const { key } = request.params;
        const sealed = await repo.useActiveSecret(deps.sql, key, deps.clock.now());
        if (sealed === undefined) throw notFound(key);
        return { key, value: deps.keyring.open(sealed) };
      },
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
        const { key, value, isReserved = false, expiresAt = null } = request.body;
        if (RETIRED_KEY.test(key)) {
          throw new AppError('FORBIDDEN', `The key ${key} is reserved for retired platform keys.`, {
            nextActions: 'Choose another key.',
          });
        }
        const id = await write(key, (tx) =>
          repo.createOrRevive(tx, { key, valueCiphertext: deps.keyring.seal(value), isReserved, expiresAt }),
        );
        if (id === undefined) {
          throw new AppError('SECRET_ALREADY_EXISTS', `Secret already exists: ${key}`, {
            nextActions: `Change it with PUT /api/secrets/${key}.`,
          });
        }
        return reply.code(201).send({ success: true, message: `Secret ${key} has been created successfully`, id });
      },
    });

    app.put('/api/secrets/:key', {
      config,
      schema: { tags, summary: 'Update a secret', security, params: keyParams, body: updateSecretSchema, response: { 200: outcomeSchema } },
      handler: async (request) => {
        const { key } = request.params;
        const { value, ...changes } = request.body;
        await write(key, async (tx, meta) => {
          if (!meta) throw notFound(key);
          if (meta.isReserved) throw reserved('update', key);
          await repo.updateSecret(tx, key, { ...changes, valueCiphertext: value === undefined ? undefined : deps.keyring.seal(value) });
        });
        return { success: true, message: `Secret ${key} has been updated successfully` };
      },
    });

    app.delete('/api/secrets/:key', {
      config,
      schema: { tags, summary: 'Deactivate a secret (soft delete)', security, params: keyParams, response: { 200: outcomeSchema } },
      handler: async (request) => {
        const { key } = request.params;
        await write(key, async (tx, meta) => {
          if (!meta) throw notFound(key);
          if (meta.isReserved) throw reserved('delete', key);
          await repo.updateSecret(tx, key, { isActive: false });
        });
        return { success: true, message: `Secret ${key} has been deleted successfully` };
      },
    });

    /** Rotates a key and describes the outcome; the route names the field the key goes in. */
    const rotate = async (kind: 'api' | 'anon', label: string, graceHours: number) => {
      const { key, oldKeyExpiresAt } = await accessKeys.rotate(kind, graceHours);
      const expiry = oldKeyExpiresAt.toISOString();
      return { key, body: { success: true, message: `${label} rotated; the old key works until ${expiry}`, oldKeyExpiresAt: expiry } };
    };
    const rotationSchema = <B extends z.ZodType, R extends z.ZodType>(label: string, body: B, response: R) => ({
      tags,
      summary: `Rotate the ${label}; the old one keeps working until the grace period ends`,
      security,
      body,
      response: { 200: response },
    });

    app.post('/api/secrets/api-key/rotate', {
      config,
      schema: rotationSchema('API key', rotationBodySchema(168, 24), rotatedApiKey),
      handler: async (request) => {
        const { key, body } = await rotate('api', 'API key', request.body.gracePeriodHours);
        return { ...body, apiKey: key };
      },
    });

    app.post('/api/secrets/anon-key/rotate', {
      config,
      schema: rotationSchema('anon key', rotationBodySchema(720, 168), rotatedAnonKey),
      handler: async (request) => {
        const { key, body } = await rotate('anon', 'Anon key', request.body.gracePeriodHours);
        return { ...body, anonKey: key };
      },
    });
  };
}
