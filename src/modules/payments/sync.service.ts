// Sync: pulls the processor's products, prices, customers, subscriptions (with items) and the
// payment history (invoices, payment intents, refunds) of an environment into the mirror.
// Everything is read first, then written in one transaction, so a processor failure half way
// leaves the mirror as it was; running it again changes nothing.
import type Stripe from 'stripe';
import { withTx } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import * as billing from './billing.repo.js';
import * as catalog from './catalog.repo.js';
import * as config from './config.repo.js';
import { recordSnapshot, type HistorySnapshot } from './history-events.js';
import { ENVIRONMENTS, type ConnectionsService } from './connections.service.js';
import { callProcessor, type Environment } from './processor.js';

interface Snapshot {
  products: Stripe.Product[];
  prices: Stripe.Price[];
  customers: Stripe.Customer[];
  subscriptions: Stripe.Subscription[];
  history: HistorySnapshot;
}

export function createSyncService(deps: Deps, connections: ConnectionsService) {
  async function read(env: Environment): Promise<Snapshot> {
    const processor = await connections.processor(env);
    return callProcessor('list the account', async () => ({
      products: await processor.products.list({ limit: 100 }).autoPagingToArray({ limit: 10_000 }),
      prices: await processor.prices.list({ limit: 100 }).autoPagingToArray({ limit: 10_000 }),
      customers: await processor.customers.list({ limit: 100 }).autoPagingToArray({ limit: 10_000 }),
      subscriptions: await processor.subscriptions
        .list({ limit: 100, status: 'all' })
        .autoPagingToArray({ limit: 10_000 }),
      history: {
        invoices: await processor.invoices.list({ limit: 100 }).autoPagingToArray({ limit: 10_000 }),
        paymentIntents: await processor.paymentIntents.list({ limit: 100 }).autoPagingToArray({ limit: 10_000 }),
        refunds: await processor.refunds.list({ limit: 100 }).autoPagingToArray({ limit: 10_000 }),
      } as unknown as HistorySnapshot,
    }));
  }

  async function write(env: Environment, snap: Snapshot) {
    const now = deps.clock.now();
    return withTx(deps.sql, async (tx) => {
      for (const p of snap.products) await catalog.upsertProduct(tx, env, p, now);
      for (const p of snap.prices) await catalog.upsertPrice(tx, env, p, now);
      for (const c of snap.customers) await billing.upsertCustomer(tx, env, c, now);
      for (const s of snap.subscriptions) await billing.upsertSubscription(tx, env, s, now, now);
      // Mirror rows the processor no longer has go; subscriptions last (their count is reported).
      const present = {
        prices: snap.prices.map((p) => p.id),
        products: snap.products.map((p) => p.id),
        customers: snap.customers.map((c) => c.id),
      };
      for (const table of ['prices', 'products', 'customers'] as const)
        await catalog.pruneMissing(tx, env, table, present[table]);
      await billing.pruneMappings(tx, env, present.customers);
      const deleted = await catalog.pruneMissing(
        tx,
        env,
        'subscriptions',
        snap.subscriptions.map((s) => s.id),
      );
      const unmapped = await billing.countUnmappedSubscriptions(tx, env);
      const paymentHistory = await recordSnapshot(tx, env, snap.history, now);
      const counts = {
        products: snap.products.length,
        prices: snap.prices.length,
        customers: snap.customers.length,
        subscriptions: snap.subscriptions.length,
        paymentHistory,
      };
      await config.recordSync(tx, env, { status: 'succeeded', error: null, counts }, now);
      return { environment: env, synced: snap.subscriptions.length, unmapped, deleted };
    });
  }

  async function syncOne(env: Environment) {
    let subscriptions: Awaited<ReturnType<typeof write>>;
    try {
      subscriptions = await write(env, await read(env));
    } catch (err) {
      if (err instanceof AppError && err.code === 'UPSTREAM_FAILURE') {
        await config.recordSync(
          deps.sql,
          env,
          { status: 'failed', error: err.message, counts: null },
          deps.clock.now(),
        );
      }
      throw err;
    }
    const { connections: all } = await connections.status();
    return { environment: env, connection: all.find((c) => c.environment === env)!, subscriptions };
  }

  return {
    /** One environment; its processor failing is a 502 (the mirror is unchanged). */
    async syncEnvironment(env: Environment) {
      return { results: [await syncOne(env)] };
    },
    /** Every configured environment; one failing does not stop the other. */
    async syncAll() {
      const configured = (await connections.keys()).keys.filter((k) => k.hasKey).map((k) => k.environment);
      const results = [];
      for (const env of ENVIRONMENTS.filter((e) => configured.includes(e))) {
        try {
          results.push(await syncOne(env));
        } catch (err) {
          if (!(err instanceof AppError && err.code === 'UPSTREAM_FAILURE')) throw err;
          const { connections: all } = await connections.status();
          results.push({ environment: env, connection: all.find((c) => c.environment === env)!, subscriptions: null });
        }
      }
      return { results };
    },
  };
}

export type SyncService = ReturnType<typeof createSyncService>;
