// The admin side of Razorpay per environment: catalog items and plans (created at Razorpay, then
// mirrored), a sync that pulls the account's items, plans, customers, subscriptions and payments
// into the mirror, and the mirror's reads (customers, transactions, subscriptions).
import { AppError } from '../../../core/errors.js';
import type { Deps } from '../../../deps.js';
import { subjectOf } from '../billing.repo.js';
import { ENVIRONMENTS } from '../connections.service.js';
import type { Environment } from '../processor.js';
import { callRazorpay, type RazorpayClient, type RzpObject } from './client.js';
import type { RazorpayConnections } from './connections.service.js';
import * as mirror from './mirror.repo.js';
import * as repo from './orders.repo.js';
import type { ItemCreate, ItemUpdate, PlanCreate } from './razorpay.schemas.js';
import { paymentTransaction } from './webhook-handlers.js';

const PAGE = 100;
const MAX_PAGES = 50;

/** Every object of a Razorpay collection, page by page (count/skip), up to MAX_PAGES pages. */
async function listAll(what: string, page: (p: { count: number; skip: number }) => Promise<{ items: RzpObject[] }>) {
  const all: RzpObject[] = [];
  for (let i = 0; i < MAX_PAGES; i++) {
    const { items } = await callRazorpay(`list ${what}`, () => page({ count: PAGE, skip: i * PAGE }));
    all.push(...items);
    if (items.length < PAGE) break;
  }
  return all;
}

export function createRazorpayAdmin(deps: Deps, connections: RazorpayConnections) {
  const now = () => deps.clock.now();

  async function pull(env: Environment, client: RazorpayClient) {
    const [items, plans, customers, subscriptions, payments] = [
      await listAll('items', (p) => client.items.all(p)),
      await listAll('plans', (p) => client.plans.all(p)),
      await listAll('customers', (p) => client.customers.all(p)),
      await listAll('subscriptions', (p) => client.subscriptions.all(p)),
      await listAll('payments', (p) => client.payments.all(p)),
    ];
    const at = now();
    for (const i of items) await mirror.upsertItem(deps.sql, env, i, at);
    for (const p of plans) await mirror.upsertPlan(deps.sql, env, p, at);
    for (const c of customers) await mirror.upsertCustomer(deps.sql, env, c, subjectOf(c.notes), at);
    for (const s of subscriptions) {
      const subject = subjectOf(s.notes);
      await repo.upsertSubscription(deps.sql, env, s, subject, at);
      if (subject && typeof s.customer_id === 'string') {
        await mirror.upsertCustomer(deps.sql, env, { id: s.customer_id }, subject, at);
      }
    }
    for (const p of payments) {
      await mirror.upsertTransaction(deps.sql, env, await paymentTransaction(deps.sql, env, p), at);
      await repo.applyPaymentToOrder(deps.sql, env, p, at);
    }
    return {
      items: items.length,
      plans: plans.length,
      customers: customers.length,
      subscriptions: subscriptions.length,
      payments: payments.length,
    };
  }

  async function syncOne(env: Environment) {
    const { client } = await connections.client(env);
    try {
      const counts = await pull(env, client);
      await mirror.recordSync(deps.sql, env, { status: 'succeeded', error: null, counts }, now());
      return { environment: env, status: 'succeeded' as const, counts, error: null };
    } catch (err) {
      const message = err instanceof AppError ? err.message : 'The sync failed.';
      await mirror.recordSync(deps.sql, env, { status: 'failed', error: message, counts: null }, now());
      throw err;
    }
  }

  return {
    syncOne: async (env: Environment) => ({ results: [await syncOne(env)] }),

    /** Every configured environment; one failing does not stop the other (its error is reported). */
    async syncAll() {
      const results = [];
      for (const env of ENVIRONMENTS) {
        if (!(await mirror.findConnection(deps.sql, env))) continue;
        try {
          results.push(await syncOne(env));
        } catch (err) {
          results.push({
            environment: env,
            status: 'failed' as const,
            counts: null,
            error: err instanceof AppError ? err.message : 'The sync failed.',
          });
        }
      }
      return { results };
    },

    async catalog(env: Environment) {
      const [items, plans] = await Promise.all([mirror.listItems(deps.sql, env), mirror.listPlans(deps.sql, env)]);
      return { items, plans };
    },

    async createItem(env: Environment, input: ItemCreate) {
      const { client } = await connections.client(env);
      const item = await callRazorpay('create the item', () =>
        client.items.create({
          name: input.name,
          amount: input.amount,
          currency: input.currency,
          ...(input.description ? { description: input.description } : {}),
        }),
      );
      return { item: await mirror.upsertItem(deps.sql, env, item, now()) };
    },

    async updateItem(env: Environment, itemId: string, input: ItemUpdate) {
      const { client } = await connections.client(env);
      const item = await callRazorpay('update the item', () => client.items.edit(itemId, input));
      return { item: await mirror.upsertItem(deps.sql, env, item, now()) };
    },

    async createPlan(env: Environment, input: PlanCreate) {
      const { client } = await connections.client(env);
      const plan = await callRazorpay('create the plan', () =>
        client.plans.create({
          period: input.period,
          interval: input.interval,
          item: {
            name: input.item.name,
            amount: input.item.amount,
            currency: input.item.currency,
            ...(input.item.description ? { description: input.item.description } : {}),
          },
          ...(input.notes ? { notes: input.notes } : {}),
        }),
      );
      return { plan: await mirror.upsertPlan(deps.sql, env, plan, now()) };
    },

    customers: async (env: Environment, limit: number) => ({
      customers: await mirror.listCustomers(deps.sql, env, limit),
    }),
    transactions: async (env: Environment, subject: { type: string; id: string } | null, limit: number) => ({
      transactions: await mirror.listTransactions(deps.sql, env, subject, limit),
    }),
    subscriptions: async (env: Environment, subject: { type: string; id: string } | null, limit: number) => ({
      subscriptions: await repo.listSubscriptions(deps.sql, env, subject, limit),
    }),
  };
}

export type RazorpayAdmin = ReturnType<typeof createRazorpayAdmin>;
