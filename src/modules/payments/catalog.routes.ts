// Admin routes of the processor connection (keys, status) and of the catalog (products, prices).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { CatalogService } from './catalog.service.js';
import type { ConnectionsService } from './connections.service.js';
import {
  configBodySchema,
  connectionSchema,
  envParams,
  keysSchema,
  priceCreateSchema,
  priceIdParams,
  priceSchema,
  pricesQuery,
  priceUpdateSchema,
  productCreateSchema,
  productIdParams,
  productSchema,
  productUpdateSchema,
} from './payments.schemas.js';

const tags = ['payments'];
const config = { access: 'admin' as const };
const security = [{ bearerAuth: [] }];
const noQuery = z.strictObject({});

export function catalogRoutes(
  connections: ConnectionsService,
  catalog: CatalogService,
  base: string,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(`${base}/status`, {
      config,
      schema: {
        tags,
        summary: 'Processor connection of each environment',
        security,
        response: { 200: z.object({ connections: z.array(connectionSchema) }) },
      },
      handler: () => connections.status(),
    });
    app.get(`${base}/config`, {
      config,
      schema: { tags, summary: 'Processor keys of each environment (masked)', security, response: { 200: keysSchema } },
      handler: () => connections.keys(),
    });
    app.put(`${base}/:environment/config`, {
      config,
      schema: {
        tags,
        summary: "Store an environment's processor secret key",
        security,
        params: envParams,
        body: configBodySchema,
        response: { 200: keysSchema },
      },
      handler: (request) =>
        connections.configure(request.params.environment, request.body.secretKey, request.body.webhookSecret),
    });
    app.delete(`${base}/:environment/config`, {
      config,
      schema: {
        tags,
        summary: "Remove an environment's processor keys",
        security,
        params: envParams,
        response: { 200: keysSchema },
      },
      handler: (request) => connections.remove(request.params.environment),
    });

    app.post(`${base}/:environment/webhook`, {
      config,
      schema: {
        tags,
        summary: "(Re)create the processor's webhook endpoint for this server",
        security,
        params: envParams,
        response: { 200: z.object({ connection: connectionSchema }) },
      },
      handler: (request) => connections.configureWebhook(request.params.environment),
    });

    app.get(`${base}/:environment/catalog`, {
      config,
      schema: {
        tags,
        summary: 'Products and prices',
        security,
        params: envParams,
        querystring: noQuery,
        response: { 200: z.object({ products: z.array(productSchema), prices: z.array(priceSchema) }) },
      },
      handler: (request) => catalog.catalog(request.params.environment),
    });
    app.get(`${base}/:environment/catalog/products`, {
      config,
      schema: {
        tags,
        summary: 'Products',
        security,
        params: envParams,
        querystring: noQuery,
        response: { 200: z.object({ products: z.array(productSchema) }) },
      },
      handler: async (request) => ({ products: await catalog.listProducts(request.params.environment) }),
    });
    app.post(`${base}/:environment/catalog/products`, {
      config,
      schema: {
        tags,
        summary: 'Create a product',
        security,
        params: envParams,
        body: productCreateSchema,
        response: { 201: z.object({ product: productSchema }) },
      },
      handler: async (request, reply) =>
        reply.code(201).send({ product: await catalog.createProduct(request.params.environment, request.body) }),
    });
    app.get(`${base}/:environment/catalog/products/:productId`, {
      config,
      schema: {
        tags,
        summary: 'A product and its prices',
        security,
        params: productIdParams,
        response: { 200: z.object({ product: productSchema, prices: z.array(priceSchema) }) },
      },
      handler: (request) => catalog.getProduct(request.params.environment, request.params.productId),
    });
    app.patch(`${base}/:environment/catalog/products/:productId`, {
      config,
      schema: {
        tags,
        summary: 'Update a product',
        security,
        params: productIdParams,
        body: productUpdateSchema,
        response: { 200: z.object({ product: productSchema }) },
      },
      handler: async (request) => ({
        product: await catalog.updateProduct(request.params.environment, request.params.productId, request.body),
      }),
    });
    app.delete(`${base}/:environment/catalog/products/:productId`, {
      config,
      schema: {
        tags,
        summary: 'Delete a product',
        security,
        params: productIdParams,
        response: { 200: z.object({ processorProductId: z.string(), deleted: z.boolean() }) },
      },
      handler: (request) => catalog.deleteProduct(request.params.environment, request.params.productId),
    });

    app.get(`${base}/:environment/catalog/prices`, {
      config,
      schema: {
        tags,
        summary: 'Prices, optionally of one product',
        security,
        params: envParams,
        querystring: pricesQuery,
        response: { 200: z.object({ prices: z.array(priceSchema) }) },
      },
      handler: async (request) => ({
        prices: await catalog.listPrices(request.params.environment, request.query.processorProductId),
      }),
    });
    app.post(`${base}/:environment/catalog/prices`, {
      config,
      schema: {
        tags,
        summary: 'Create a price',
        security,
        params: envParams,
        body: priceCreateSchema,
        response: { 201: z.object({ price: priceSchema }) },
      },
      handler: async (request, reply) =>
        reply.code(201).send({ price: await catalog.createPrice(request.params.environment, request.body) }),
    });
    app.get(`${base}/:environment/catalog/prices/:priceId`, {
      config,
      schema: {
        tags,
        summary: 'A price',
        security,
        params: priceIdParams,
        response: { 200: z.object({ price: priceSchema }) },
      },
      handler: async (request) => ({
        price: await catalog.getPrice(request.params.environment, request.params.priceId),
      }),
    });
    app.patch(`${base}/:environment/catalog/prices/:priceId`, {
      config,
      schema: {
        tags,
        summary: 'Update a price',
        security,
        params: priceIdParams,
        body: priceUpdateSchema,
        response: { 200: z.object({ price: priceSchema }) },
      },
      handler: async (request) => ({
        price: await catalog.updatePrice(request.params.environment, request.params.priceId, request.body),
      }),
    });
    app.delete(`${base}/:environment/catalog/prices/:priceId`, {
      config,
      schema: {
        tags,
        summary: 'Archive a price (prices cannot be deleted)',
        security,
        params: priceIdParams,
        response: { 200: z.object({ price: priceSchema, archived: z.boolean() }) },
      },
      handler: (request) => catalog.archivePrice(request.params.environment, request.params.priceId),
    });
  };
}
