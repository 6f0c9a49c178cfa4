// Catalog use cases: each write goes to the processor first and the mirror row is written from
// its answer, so a processor failure leaves the local catalog as it was.
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import * as repo from './catalog.repo.js';
import type { ConnectionsService } from './connections.service.js';
import type { PriceCreate, PriceUpdate, ProductCreate, ProductUpdate } from './payments.schemas.js';
import { callProcessor, namespacedKey, type Environment } from './processor.js';

const productNotFound = (id: string) => () => new AppError('PAYMENT_PRODUCT_NOT_FOUND', `Product ${id} not found.`);
const priceNotFound = (id: string) => () => new AppError('PAYMENT_PRICE_NOT_FOUND', `Price ${id} not found.`);

/** The processor's way to clear a field is an empty string. */
const orEmpty = (value: string | null | undefined) => (value === null ? '' : value);

export function createCatalogService(deps: Deps, connections: ConnectionsService) {
  const now = () => deps.clock.now();

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
      const processor = await connections.processor(env);
      const created = await callProcessor('create the product', () =>
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
      return repo.upsertProduct(deps.sql, env, created, now());
    },

    async updateProduct(env: Environment, id: string, input: ProductUpdate) {
      const processor = await connections.processor(env);
      const updated = await callProcessor(
        'update the product',
        () => processor.products.update(id, { ...input, description: orEmpty(input.description) }),
        productNotFound(id),
      );
      return repo.upsertProduct(deps.sql, env, updated, now());
    },

    async deleteProduct(env: Environment, id: string) {
      const processor = await connections.processor(env);
      const deleted = await callProcessor('delete the product', () => processor.products.del(id), productNotFound(id));
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
      const processor = await connections.processor(env);
      const created = await callProcessor('create the price', () =>
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
      return repo.upsertPrice(deps.sql, env, created, now());
    },

    async updatePrice(env: Environment, id: string, input: PriceUpdate) {
      const processor = await connections.processor(env);
      const updated = await callProcessor(
        'update the price',
        () =>
          processor.prices.update(id, {
            active: input.active,
            lookup_key: orEmpty(input.lookupKey),
            tax_behavior: input.taxBehavior,
            metadata: input.metadata,
          }),
        priceNotFound(id),
      );
      return repo.upsertPrice(deps.sql, env, updated, now());
    },

    /** Prices cannot be deleted at the processor, only archived (made inactive). */
    async archivePrice(env: Environment, id: string) {
      const processor = await connections.processor(env);
      const archived = await callProcessor(
        'archive the price',
        () => processor.prices.update(id, { active: false }),
        priceNotFound(id),
      );
      return { price: await repo.upsertPrice(deps.sql, env, archived, now()), archived: !archived.active };
    },
  };
}

export type CatalogService = ReturnType<typeof createCatalogService>;
