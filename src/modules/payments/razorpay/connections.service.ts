// Razorpay connection per environment: its key pair and webhook secret (reserved secrets, sealed
// by the keyring), checked against Razorpay before they are stored; the masked view; the SDK
// client of an environment; and webhook secret rotation with a grace period for the old secret.
import { randomBytes } from 'node:crypto';
import { withTx } from '../../../core/db.js';
import { AppError } from '../../../core/errors.js';
import type { Deps } from '../../../deps.js';
import { deactivateSecret, readSealedSecret, writeReservedSecret } from '../../secrets/index.js';
import { ENVIRONMENTS } from '../connections.service.js';
import type { Environment } from '../processor.js';
import { callRazorpay, createRazorpayClients, keyIdPrefix, type RazorpayClient, type RazorpayKeys } from './client.js';
import * as mirror from './mirror.repo.js';

const mask = (value: string) => `${value.slice(0, Math.min(9, value.length - 4))}****${value.slice(-4)}`;

export const webhookPath = (env: Environment) => `/api/webhooks/razorpay/${env}`;

export type RazorpayConnections = ReturnType<typeof createRazorpayConnections>;

export function createRazorpayConnections(deps: Deps) {
  const clientFor = createRazorpayClients(deps.config.razorpay);
  const names = mirror.secretNames;

  const open = async (key: string) => {
    const sealed = await readSealedSecret(deps.sql, key);
    return sealed === undefined ? undefined : deps.keyring.open(sealed);
  };

  async function keysOf(env: Environment): Promise<RazorpayKeys | undefined> {
    const [keyId, keySecret] = await Promise.all([open(names(env).keyId), open(names(env).keySecret)]);
    return keyId && keySecret ? { keyId, keySecret } : undefined;
  }

  /** The stored key pair of an environment; 400 PAYMENT_CONFIG_NOT_FOUND (with what to do) when none. */
  async function requireKeys(env: Environment): Promise<RazorpayKeys> {
    const keys = await keysOf(env);
    if (!keys) {
      throw new AppError('PAYMENT_CONFIG_NOT_FOUND', `Razorpay ${env} keys are not configured.`, {
        status: 400,
        nextActions: `The admin stores them with PUT /api/payments/razorpay/${env}/config {keyId, keySecret} (or in the dashboard's Payments screen).`,
      });
    }
    if (!keys.keyId.startsWith(keyIdPrefix(env))) {
      throw new AppError(
        'PAYMENT_CONFIG_INVALID',
        `The stored Razorpay ${env} key id does not start with ${keyIdPrefix(env)}.`,
        {
          nextActions: `Store a ${env} key pair with PUT /api/payments/razorpay/${env}/config.`,
        },
      );
    }
    return keys;
  }

  async function client(env: Environment): Promise<{ client: RazorpayClient; keys: RazorpayKeys }> {
    const keys = await requireKeys(env);
    return { client: await clientFor(keys), keys };
  }

  async function keys() {
    const rows = await Promise.all(
      ENVIRONMENTS.flatMap((environment) =>
        (
          [
            ['api_key', names(environment).keyId],
            ['api_secret', names(environment).keySecret],
            ['webhook_secret', names(environment).webhookSecret],
          ] as const
        ).map(async ([keyType, name]) => {
          const value = await open(name);
          return { environment, keyType, value: value === undefined ? null : mask(value) };
        }),
      ),
    );
    return { keys: rows };
  }

  async function connection(env: Environment) {
    const [row, keyPair, webhookSecret] = await Promise.all([
      mirror.findConnection(deps.sql, env),
      keysOf(env),
      open(names(env).webhookSecret),
    ]);
    return {
      environment: env,
      status: row && keyPair ? ('connected' as const) : ('unconfigured' as const),
      accountId: row?.accountId ?? null,
      maskedKey: keyPair ? mask(keyPair.keyId) : null,
      webhookUrl: `${deps.config.apiBaseUrl}${webhookPath(env)}`,
      webhookSecretConfigured: webhookSecret !== undefined,
      webhookRotatedAt: row?.webhookRotatedAt ?? null,
      previousWebhookSecretValidUntil: row?.previousWebhookSecretUntil ?? null,
      lastSyncedAt: row?.lastSyncedAt ?? null,
      lastSyncStatus: row?.lastSyncStatus ?? null,
      lastSyncError: row?.lastSyncError ?? null,
      lastSyncCounts: row?.lastSyncCounts ?? null,
    };
  }

  async function webhookView(env: Environment) {
    const secret = await open(names(env).webhookSecret);
    if (secret === undefined) {
      throw new AppError('PAYMENT_CONFIG_NOT_FOUND', `Razorpay ${env} is not configured.`, {
        nextActions: `Store the keys with PUT /api/payments/razorpay/${env}/config first.`,
      });
    }
    const c = await connection(env);
    return { connection: c, webhookUrl: c.webhookUrl, webhookSecret: secret };
  }

  return {
    keys,
    client,
    requireKeys,
    connection,
    webhookView,
    status: async () => ({ razorpayConnections: await Promise.all(ENVIRONMENTS.map(connection)) }),

    /** The webhook secrets that verify a delivery now: the current one, and the previous one in its grace period. */
    async webhookSecrets(env: Environment): Promise<string[]> {
      const current = await open(names(env).webhookSecret);
      if (current === undefined) return [];
      const row = await mirror.findConnection(deps.sql, env);
      const graceOpen = row?.previousWebhookSecretUntil && row.previousWebhookSecretUntil > deps.clock.now();
      const previous = graceOpen ? await open(names(env).previousWebhookSecret) : undefined;
      return previous === undefined ? [current] : [current, previous];
    },

    /**
     * Stores an environment's key pair after Razorpay accepted it (listing one order). A different
     * key id means another account may be behind it: that environment's mirror is cleared.
     */
    async configure(env: Environment, input: { keyId: string; keySecret: string; webhookSecret?: string }) {
      if (!input.keyId.startsWith(keyIdPrefix(env))) {
        throw new AppError(
          'PAYMENT_CONFIG_INVALID',
          `The Razorpay ${env} key id must start with ${keyIdPrefix(env)}.`,
          {
            nextActions: `Copy the ${env} mode key from Razorpay's dashboard (Account & Settings → API keys).`,
          },
        );
      }
      const candidate = await clientFor({ keyId: input.keyId, keySecret: input.keySecret });
      await callRazorpay('check the keys', () => candidate.orders.all({ count: 1 }));
      const now = deps.clock.now();
      const existingSecret = await open(names(env).webhookSecret);
      const webhookSecret = input.webhookSecret ?? existingSecret ?? randomBytes(32).toString('hex');
      await withTx(deps.sql, async (tx) => {
        const previous = await mirror.findConnection(tx, env);
        if (previous && previous.keyId !== input.keyId) await mirror.clearMirror(tx, env);
        await writeReservedSecret(tx, names(env).keyId, deps.keyring.seal(input.keyId), now);
        await writeReservedSecret(tx, names(env).keySecret, deps.keyring.seal(input.keySecret), now);
        if (webhookSecret !== existingSecret) {
          await writeReservedSecret(tx, names(env).webhookSecret, deps.keyring.seal(webhookSecret), now);
        }
        await mirror.upsertConnection(tx, env, input.keyId, now);
      });
      return keys();
    },

    async remove(env: Environment) {
      const now = deps.clock.now();
      const removed = await withTx(deps.sql, async (tx) => {
        const had = await deactivateSecret(tx, names(env).keyId, now);
        await deactivateSecret(tx, names(env).keySecret, now);
        await deactivateSecret(tx, names(env).webhookSecret, now);
        await deactivateSecret(tx, names(env).previousWebhookSecret, now);
        await mirror.deleteConnection(tx, env);
        return had;
      });
      if (!removed) {
        throw new AppError('PAYMENT_CONFIG_NOT_FOUND', `No Razorpay key is configured for ${env}.`, {
          nextActions: `Nothing to remove; PUT /api/payments/razorpay/${env}/config stores one.`,
        });
      }
      return keys();
    },

    /**
     * A new webhook secret (32 random bytes, hex). The old one keeps verifying deliveries for the
     * grace period, so events in flight while the admin updates Razorpay's dashboard are not lost.
     */
    async rotateWebhookSecret(env: Environment) {
      await requireKeys(env);
      const now = deps.clock.now();
      const old = await open(names(env).webhookSecret);
      const next = randomBytes(32).toString('hex');
      const graceSeconds = deps.config.razorpay.webhookSecretGraceSeconds;
      await withTx(deps.sql, async (tx) => {
        if (old !== undefined && graceSeconds > 0) {
          await writeReservedSecret(tx, names(env).previousWebhookSecret, deps.keyring.seal(old), now);
        } else {
          await deactivateSecret(tx, names(env).previousWebhookSecret, now);
        }
        await writeReservedSecret(tx, names(env).webhookSecret, deps.keyring.seal(next), now);
        const until = old !== undefined && graceSeconds > 0 ? new Date(now.getTime() + graceSeconds * 1000) : null;
        await mirror.recordRotation(tx, env, until, now);
      });
      return webhookView(env);
    },
  };
}
