// Catalog use cases: each write goes to the processor first and the mirror row is written from
// its answer, so a processor failure leaves the local catalog as it was.
import type Stripe from 'stripe';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import * as repo from './catalog.repo.js';
import type { ConnectionsService } from './connections.service.js';
import type { PriceCreate, PriceUpdate, ProductCreate, ProductUpdate } from './payments.schemas.js';
import { callProcessor, namespacedKey, type Environment, type Processor } from './processor.js';

const productNotFound = (id: string) => () => new AppError('PAYMENT_PRODUCT_NOT_FOUND', `Product ${id} not found.`);
const priceNotFound = (id: string) => () => new AppError('PAYMENT_PRICE_NOT_FOUND', `Price ${id} not found.`);

/** The processor's way to clear a field is an empty string. */
const orEmpty = (value: string | null | undefined) => (value === null ? '' : value);

export function createCatalogService(deps: Deps, connections: ConnectionsService) {
  const now = () => deps.clock.now();

  /** One call to the processor of `env`; a refusal or a missing object becomes an AppError. */
  async function call<T>(
    env: Environment,
    what: string,
    work: (p: Processor) => Promise<T>,
    notFound?: () => AppError,
  ) {
    const processor = await connections.processor(env);
    return callProcessor(what, () => work(processor), notFound);
  }

  /** Writes the product or price the processor answered with into the mirror. */
  const mirrorProduct = (env: Environment, product: Stripe.Product) =>
    repo.upsertProduct(deps.sql, env, product, now());
  const mirrorPrice = (env: Environment, price: Stripe.Price) => repo.upsertPrice(deps.sql, env, price, now());

  return {
    async catalog(env: Environment) {
      return { products: await repo.listProducts(deps.sql, env), prices: await repo.listPrices(deps.sql, env) };
    },
    listProducts: (env: Environment) => repo.listProducts(deps.sql, env),
    async getProduct(env: Environment, id: string) {
      const product = await repo.findProduct(deps.sql, env, id);
      if (!product) throw productNotFound(id)();
      return { product, prices: await repo.listPrices(deps.sql, env, id) };
    },

    async createProduct(env: Environment, input: ProductCreate) {
      const created = await call(env, 'create the product', (processor) =>
        processor.products.create(
          {
            name: input.name,
            description: orEmpty(input.description) || undefined,
            active: input.active,
            metadata: input.metadata,
          },
          { idempotencyKey: namespacedKey(env, 'products.create', input.idempotencyKey) },
        ),
      );
      return mirrorProduct(env, created);
    },

    async updateProduct(env: Environment, id: string, input: ProductUpdate) {
      const updated = await call(
        env,
        'update the product',
        (processor) => processor.products.update(id, { ...input, description: orEmpty(input.description) }),
        productNotFound(id),
      );
      return mirrorProduct(env, updated);
    },

    async deleteProduct(env: Environment, id: string) {
      const deleted = await call(env, 'delete the product', (p) => p.products.del(id), productNotFound(id));
      await repo.deleteProduct(deps.sql, env, id);
      return { processorProductId: deleted.id, deleted: deleted.deleted };
    },

    listPrices: (env: Environment, productId?: string) => repo.listPrices(deps.sql, env, productId),
    async getPrice(env: Environment, id: string) {
      const price = await repo.findPrice(deps.sql, env, id);
      if (!price) throw priceNotFound(id)();
      return price;
    },

    async createPrice(env: Environment, input: PriceCreate) {
      const created = await call(env, 'create the price', (processor) =>
        processor.prices.create(
          {
            product: input.processorProductId,
            currency: input.currency,
            unit_amount: input.unitAmount,
            lookup_key: input.lookupKey ?? undefined,
            active: input.active,
            recurring: input.recurring && {
              interval: input.recurring.interval,
              interval_count: input.recurring.intervalCount,
            },
            tax_behavior: input.taxBehavior,
            metadata: input.metadata,
          },
          { idempotencyKey: namespacedKey(env, 'prices.create', input.idempotencyKey) },
        ),
      );
      return mirrorPrice(env, created);
    },

    async updatePrice(env: Environment, id: string, input: PriceUpdate) {
      const updated = await call(
        env,
        'update the price',
        (processor) =>
          processor.prices.update(id, {
            active: input.active,
            lookup_key: orEmpty(input.lookupKey),
            tax_behavior: input.taxBehavior,
            metadata: input.metadata,
          }),
        priceNotFound(id),
      );
      return mirrorPrice(env, updated);
    },

    /** Prices cannot be deleted at the processor, only archived (made inactive). */
    async archivePrice(env: Environment, id: string) {
      const archived = await call(
        env,
        'archive the price',
        (processor) => processor.prices.update(id, { active: false }),
        priceNotFound(id),
      );
      return { price: await mirrorPrice(env, archived), archived: !archived.active };
    },
  };
}

export type CatalogService = ReturnType<typeof createCatalogService>;
