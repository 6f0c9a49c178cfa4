// SQL for the catalog mirror: products and prices of each environment, written from the
// processor's own objects after it answered.
import type Stripe from 'stripe';
import type { Queryable } from '../../core/db.js';
import { idOf, type Environment } from './processor.js';
import { jsonText } from '../../core/json-guard.js';

const productColumns = (db: Queryable) => db`
  environment, processor_product_id as "processorProductId", name, description, active,
  default_price_id as "defaultPriceId", metadata, synced_at as "syncedAt"`;
const priceColumns = (db: Queryable) => db`
  environment, processor_price_id as "processorPriceId", processor_product_id as "processorProductId",
  active, currency, unit_amount::float8 as "unitAmount", unit_amount_decimal as "unitAmountDecimal", type,
  lookup_key as "lookupKey", billing_scheme as "billingScheme", tax_behavior as "taxBehavior",
  recurring_interval as "recurringInterval", recurring_interval_count as "recurringIntervalCount",
  metadata, synced_at as "syncedAt"`;

export interface ProductRow {
  environment: Environment;
  processorProductId: string;
  name: string;
  description: string | null;
  active: boolean;
  defaultPriceId: string | null;
  metadata: Record<string, string>;
  syncedAt: Date;
}

export interface PriceRow {
  environment: Environment;
  processorPriceId: string;
  processorProductId: string | null;
  active: boolean;
  currency: string;
  unitAmount: number | null;
  unitAmountDecimal: string | null;
  type: string;
  lookupKey: string | null;
  billingScheme: string | null;
  taxBehavior: string | null;
  recurringInterval: string | null;
  recurringIntervalCount: number | null;
  metadata: Record<string, string>;
  syncedAt: Date;
}

export async function upsertProduct(
  db: Queryable,
  env: Environment,
  p: Stripe.Product,
  now: Date,
): Promise<ProductRow> {
  const [row] = await db<ProductRow[]>`
    insert into payments.products (environment, processor_product_id, name, description, active, default_price_id, metadata, raw, synced_at)
    values (${env}, ${p.id}, ${p.name}, ${p.description ?? null}, ${p.active}, ${idOf(p.default_price)},
      ${jsonText(p.metadata)}::text::jsonb, ${jsonText(p)}::text::jsonb, ${now})
    on conflict (environment, processor_product_id) do update set name = excluded.name,
      description = excluded.description, active = excluded.active, default_price_id = excluded.default_price_id,
      metadata = excluded.metadata, raw = excluded.raw, synced_at = excluded.synced_at
    returning ${productColumns(db)}`;
  return row!;
}

export async function upsertPrice(db: Queryable, env: Environment, p: Stripe.Price, now: Date): Promise<PriceRow> {
  const [row] = await db<PriceRow[]>`
    insert into payments.prices (environment, processor_price_id, processor_product_id, active, currency, unit_amount,
      unit_amount_decimal, type, lookup_key, billing_scheme, tax_behavior, recurring_interval, recurring_interval_count,
      metadata, raw, synced_at)
    values (${env}, ${p.id}, ${idOf(p.product)}, ${p.active}, ${p.currency}, ${p.unit_amount ?? null},
      ${p.unit_amount_decimal === null || p.unit_amount_decimal === undefined ? null : String(p.unit_amount_decimal)}, ${p.type}, ${p.lookup_key ?? null},
      ${p.billing_scheme ?? null}, ${p.tax_behavior ?? null}, ${p.recurring?.interval ?? null},
      ${p.recurring?.interval_count ?? null}, ${jsonText(p.metadata)}::text::jsonb, ${jsonText(p)}::text::jsonb, ${now})
    on conflict (environment, processor_price_id) do update set processor_product_id = excluded.processor_product_id,
      active = excluded.active, currency = excluded.currency, unit_amount = excluded.unit_amount,
      unit_amount_decimal = excluded.unit_amount_decimal, type = excluded.type, lookup_key = excluded.lookup_key,
      billing_scheme = excluded.billing_scheme, tax_behavior = excluded.tax_behavior,
      recurring_interval = excluded.recurring_interval, recurring_interval_count = excluded.recurring_interval_count,
      metadata = excluded.metadata, raw = excluded.raw, synced_at = excluded.synced_at
    returning ${priceColumns(db)}`;
  return row!;
}

export async function listProducts(db: Queryable, env: Environment): Promise<ProductRow[]> {
  return db<
    ProductRow[]
  >`select ${productColumns(db)} from payments.products where environment = ${env} order by name, processor_product_id`;
}

export async function findProduct(db: Queryable, env: Environment, id: string): Promise<ProductRow | undefined> {
  const [row] = await db<ProductRow[]>`
    select ${productColumns(db)} from payments.products where environment = ${env} and processor_product_id = ${id}`;
  return row;
}

export async function deleteProduct(db: Queryable, env: Environment, id: string): Promise<void> {
  await db`delete from payments.products where environment = ${env} and processor_product_id = ${id}`;
}

export async function listPrices(db: Queryable, env: Environment, productId?: string): Promise<PriceRow[]> {
  return db<PriceRow[]>`
    select ${priceColumns(db)} from payments.prices
    where environment = ${env} ${productId === undefined ? db`` : db`and processor_product_id = ${productId}`}
    order by processor_product_id, processor_price_id`;
}

export async function findPrice(db: Queryable, env: Environment, id: string): Promise<PriceRow | undefined> {
  const [row] = await db<PriceRow[]>`
    select ${priceColumns(db)} from payments.prices where environment = ${env} and processor_price_id = ${id}`;
  return row;
}

/** Removes mirrored rows of `table` whose processor ids are no longer in `keep` (after a full sync). */
export async function pruneMissing(
  db: Queryable,
  env: Environment,
  table: 'products' | 'prices' | 'customers' | 'subscriptions',
  keep: string[],
): Promise<number> {
  const column = {
    products: 'processor_product_id',
    prices: 'processor_price_id',
    customers: 'processor_customer_id',
    subscriptions: 'processor_subscription_id',
  }[table];
  const rows = await db`
    delete from ${db(`payments.${table}`)} where environment = ${env} and not (${db(column)} = any(${keep}))
    returning 1`;
  return rows.length;
}
