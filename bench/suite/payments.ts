// Payments: the subscriptions list of one billing subject (admin API key, 50 rows with their
// items from the mirror) on Plinth, against a bare Fastify handler running the same repository
// query on its own postgres.js pool, same run.
import Fastify from 'fastify';
import postgres from 'postgres';
import { listSubscriptions } from '../../src/modules/payments/billing.repo.js';
import { measureLoad, type SpecFor } from '../lib/measure.js';
import type { Scenario } from './scenario.js';

const CONNECTIONS = 32;
const SUBJECT = { type: 'user', id: 'bench-subject' };
const ROWS = 50;

async function seed(sql: postgres.Sql): Promise<void> {
  await sql`delete from payments.subscriptions where environment = 'test' and subject_id = ${SUBJECT.id}`;
  for (let i = 0; i < ROWS; i++) {
    const id = `sub_bench_${i}`;
    await sql`
      insert into payments.subscriptions (environment, processor_subscription_id, processor_customer_id, subject_type, subject_id,
        status, metadata, raw, state_at, synced_at)
      values ('test', ${id}, 'cus_bench', ${SUBJECT.type}, ${SUBJECT.id}, 'active', '{}', '{}', now(), now())`;
    await sql`
      insert into payments.subscription_items (environment, processor_subscription_item_id, processor_subscription_id,
        processor_product_id, processor_price_id, quantity)
      values ('test', ${`si_bench_${i}`}, ${id}, 'prod_bench', 'price_bench', 1)`;
  }
}

export const paymentsSubscriptions: Scenario = {
  name: 'payments-subscriptions',
  async run(ctx) {
    const sql = postgres(ctx.databaseUrl, { max: 10, onnotice: () => {} });
    const limit = Fastify({ logger: false });
    limit.get('/subscriptions', async () => ({
      subscriptions: await listSubscriptions(sql, 'test', SUBJECT, ROWS),
    }));
    try {
      await seed(sql);
      const limitUrl = await limit.listen({ port: 0, host: '127.0.0.1' });
      const path = `/api/payments/test/subscriptions?subjectType=${SUBJECT.type}&subjectId=${SUBJECT.id}&limit=${ROWS}`;
      const check = await fetch(`${ctx.plinthUrl}${path}`, { headers: { 'x-api-key': ctx.apiKey } });
      const body = (await check.json()) as { subscriptions?: unknown[] };
      if (check.status !== 200 || body.subscriptions?.length !== ROWS)
        throw new Error(`Plinth answered ${check.status} with ${body.subscriptions?.length} rows`);
      const spec =
        (url: string, p: string, headers: Record<string, string>): SpecFor =>
        async (seconds) => ({
          url,
          method: 'GET',
          path: p,
          headers,
          connections: CONNECTIONS,
          seconds,
          expectStatus: 200,
        });
      return {
        name: this.name,
        request: `GET ${path} (API key; ${ROWS} subscriptions with one item each); every answer must be 200`,
        connections: CONNECTIONS,
        plinth: await measureLoad(spec(ctx.plinthUrl, path, { 'x-api-key': ctx.apiKey }), ctx),
        limit: await measureLoad(spec(limitUrl, '/subscriptions', {}), ctx),
        limitDoes:
          'the same repository query (subscriptions of one subject with their items aggregated) on a bare Fastify + postgres.js handler, plain JSON out',
        target: { kind: 'report' },
      };
    } finally {
      await limit.close();
      await sql.end({ timeout: 5 });
    }
  },
};
