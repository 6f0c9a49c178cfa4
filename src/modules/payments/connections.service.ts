// Processor connection per environment: storing and removing its secret key (validated against
// the processor first), the masked view of the keys, and the SDK client of an environment.
import { withTx } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import { deactivateSecret, readSealedSecret, writeReservedSecret } from '../secrets/index.js';
import * as repo from './config.repo.js';
import { callProcessor, createProcessorClients, type Environment, type Processor } from './processor.js';

export const ENVIRONMENTS: Environment[] = ['test', 'live'];

/** The 20 events the managed webhook endpoint subscribes to. */
export const MANAGED_EVENTS = [
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'checkout.session.async_payment_failed',
  'checkout.session.expired',
  'invoice.paid',
  'invoice.payment_failed',
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'charge.refunded',
  'refund.created',
  'refund.updated',
  'refund.failed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'customer.subscription.paused',
  'customer.subscription.resumed',
] as const;

const maskKey = (key: string) => `${key.slice(0, key.indexOf('_', 3) + 1)}****${key.slice(-4)}`;

export type ConnectionsService = ReturnType<typeof createConnectionsService>;

export function createConnectionsService(deps: Deps) {
  const clientFor = createProcessorClients(deps.config.paymentsProcessor);

  const secretKeyOf = async (env: Environment): Promise<string | undefined> => {
    const sealed = await readSealedSecret(deps.sql, repo.secretKeyName(env));
    return sealed === undefined ? undefined : deps.keyring.open(sealed);
  };

  async function keys() {
    return {
      keys: await Promise.all(
        ENVIRONMENTS.map(async (environment) => {
          const key = await secretKeyOf(environment);
          return { environment, hasKey: key !== undefined, maskedKey: key === undefined ? null : maskKey(key) };
        }),
      ),
    };
  }

  /** The SDK client of an environment; 400 PAYMENT_CONFIG_INVALID when no key is stored. */
  async function processor(env: Environment): Promise<Processor> {
    const key = await secretKeyOf(env);
    if (key === undefined) {
      throw new AppError('PAYMENT_CONFIG_INVALID', `${repo.secretKeyName(env)} is not configured.`, {
        nextActions: `Store the ${env} secret key with PUT /api/payments/${env}/config.`,
      });
    }
    return clientFor(key);
  }

  async function status() {
    const rows = new Map((await repo.listConnections(deps.sql)).map((r) => [r.environment, r]));
    const masked = new Map((await keys()).keys.map((k) => [k.environment, k.maskedKey]));
    return {
      connections: ENVIRONMENTS.map((environment) => {
        const row = rows.get(environment);
        return {
          environment,
          status: masked.get(environment) && row ? ('connected' as const) : ('unconfigured' as const),
          processorAccountId: row?.processorAccountId ?? null,
          processorAccountEmail: row?.processorAccountEmail ?? null,
          accountLivemode: row?.accountLivemode ?? null,
          webhookEndpointId: row?.webhookEndpointId ?? null,
          webhookEndpointUrl: row?.webhookEndpointUrl ?? null,
          webhookConfiguredAt: row?.webhookConfiguredAt ?? null,
          maskedKey: masked.get(environment) ?? null,
          lastSyncedAt: row?.lastSyncedAt ?? null,
          lastSyncStatus: row?.lastSyncStatus ?? null,
          lastSyncError: row?.lastSyncError ?? null,
          lastSyncCounts: row?.lastSyncCounts ?? null,
        };
      }),
    };
  }

  return {
    keys,
    processor,
    status,

    async webhookSecret(env: Environment): Promise<string | undefined> {
      const sealed = await readSealedSecret(deps.sql, repo.webhookSecretName(env));
      return sealed === undefined ? undefined : deps.keyring.open(sealed);
    },

    async configure(env: Environment, secretKey: string, webhookSecret: string | undefined) {
      if (!secretKey.startsWith(`sk_${env}_`)) {
        throw new AppError('PAYMENT_CONFIG_INVALID', `The ${env} secret key must start with sk_${env}_.`);
      }
      const client = await clientFor(secretKey);
      const account = await callProcessor('check the secret key', () => client.accounts.retrieveCurrent()).catch(
        (err) => {
          if (
            err instanceof AppError &&
            err.code === 'UPSTREAM_FAILURE' &&
            (err.cause as { statusCode?: number })?.statusCode === 401
          ) {
            throw new AppError('PAYMENT_CONFIG_INVALID', 'The processor rejected this secret key.', { cause: err });
          }
          throw err;
        },
      );
      const now = deps.clock.now();
      await withTx(deps.sql, async (tx) => {
        const [previous] = (await repo.listConnections(tx)).filter((c) => c.environment === env);
        if (previous && previous.processorAccountId !== account.id) await repo.clearMirror(tx, env);
        await writeReservedSecret(tx, repo.secretKeyName(env), deps.keyring.seal(secretKey), now);
        if (webhookSecret !== undefined) {
          await writeReservedSecret(tx, repo.webhookSecretName(env), deps.keyring.seal(webhookSecret), now);
        }
        await repo.upsertConnection(
          tx,
          env,
          { id: account.id, email: account.email ?? null, livemode: env === 'live' },
          now,
        );
      });
      return keys();
    },

    /**
     * (Re)creates the processor's webhook endpoint for this environment, pointing at this server,
     * and stores its signing secret; the previous endpoint is deleted afterwards.
     */
    async configureWebhook(env: Environment) {
      const client = await processor(env);
      const [previous] = (await repo.listConnections(deps.sql)).filter((c) => c.environment === env);
      const url = `${deps.config.apiBaseUrl}/api/webhooks/processor/${env}`;
      const endpoint = await callProcessor('create the webhook endpoint', () =>
        client.webhookEndpoints.create({ url, enabled_events: [...MANAGED_EVENTS] }),
      );
      const now = deps.clock.now();
      await withTx(deps.sql, async (tx) => {
        await writeReservedSecret(tx, repo.webhookSecretName(env), deps.keyring.seal(endpoint.secret!), now);
        await repo.recordWebhookEndpoint(tx, env, { id: endpoint.id, url }, now);
      });
      if (previous?.webhookEndpointId) {
        // Best effort: the new endpoint works either way; a stale one only sends events we reject.
        await client.webhookEndpoints.del(previous.webhookEndpointId).catch(() => undefined);
      }
      const { connections } = await status();
      return { connection: connections.find((c) => c.environment === env)! };
    },

    async remove(env: Environment) {
      const now = deps.clock.now();
      const removed = await withTx(deps.sql, async (tx) => {
        const had = await deactivateSecret(tx, repo.secretKeyName(env), now);
        await deactivateSecret(tx, repo.webhookSecretName(env), now);
        await repo.deleteConnection(tx, env);
        return had;
      });
      if (!removed) throw new AppError('PAYMENT_CONFIG_NOT_FOUND', `No processor key is configured for ${env}.`);
      return keys();
    },
  };
}
