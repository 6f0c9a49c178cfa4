// Admin routes of the AI gateway: the model catalogue, its settings (anon switch, daily token
// budgets, model allow-list) and the usage report by caller and UTC day, and per caller.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  aiSettingsSchema,
  aiSettingsUpdateSchema,
  catalogModelSchema,
  usageByCallerQuerySchema,
  usageByCallerSchema,
  usageQuerySchema,
  usageReportSchema,
} from './ai.schemas.js';
import type { CatalogService } from './catalog.service.js';
import type { SettingsService } from './settings.service.js';

const tags = ['ai'];
const config = { access: 'admin' as const };
const security = [{ bearerAuth: [] }];

export function adminRoutes(settings: SettingsService, catalog: CatalogService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/ai/models', {
      config,
      schema: {
        tags,
        summary: "The provider's model catalogue (cached an hour)",
        security,
        response: { 200: z.array(catalogModelSchema) },
      },
      handler: () => catalog.list(),
    });

    app.get('/api/ai/settings', {
      config,
      schema: { tags, summary: 'AI gateway settings', security, response: { 200: aiSettingsSchema } },
      handler: () => settings.read(),
    });

    app.put('/api/ai/settings', {
      config,
      schema: {
        tags,
        summary: 'Change AI gateway settings (keys left out keep their value)',
        security,
        body: aiSettingsUpdateSchema,
        response: { 200: aiSettingsSchema },
      },
      handler: (request) => settings.update(request.body),
    });

    app.get('/api/ai/usage', {
      config,
      schema: {
        tags,
        summary: 'AI usage (requests, tokens in and out) by caller, UTC day and model',
        security,
        querystring: usageQuerySchema,
        response: { 200: usageReportSchema },
      },
      handler: (request) => settings.usage(request.query),
    });

    app.get('/api/ai/usage/callers', {
      config,
      schema: {
        tags,
        summary: 'AI usage summed per caller over UTC days (the heaviest first)',
        security,
        querystring: usageByCallerQuerySchema,
        response: { 200: usageByCallerSchema },
      },
      handler: (request) => settings.usageByCaller(request.query),
    });
  };
}
