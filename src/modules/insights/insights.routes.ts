// /api/insights/*: the console's charts (admin). Each family answers fixed buckets computed in
// PostgreSQL from the per-minute rollup, so a week costs the same whatever the logs hold.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { InsightsService } from './insights.service.js';
import {
  authSeries,
  functionsQuery,
  functionsSeries,
  rangeQuery,
  realtimeSeries,
  sizesSeries,
  tablesInsights,
  trafficSeries,
} from './insights.schemas.js';

const admin = { access: 'admin' as const };
const tags = ['insights'];
const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];

export function insightsRoutes(insights: InsightsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/insights/traffic', {
      config: admin,
      schema: {
        tags,
        summary: 'Requests per bucket by status class, error rate and p50/p95 latency',
        security,
        querystring: rangeQuery,
        response: { 200: trafficSeries },
      },
      handler: (request) => insights.traffic(request.query.range),
    });

    app.get('/api/insights/functions', {
      config: admin,
      schema: {
        tags,
        summary:
          'Function invocations, errors and latency per bucket (one function with slug), and totals per function',
        security,
        querystring: functionsQuery,
        response: { 200: functionsSeries },
      },
      handler: (request) => insights.functions(request.query.range, request.query.slug),
    });

    app.get('/api/insights/realtime', {
      config: admin,
      schema: {
        tags,
        summary: 'Realtime messages and connections per bucket, and the busiest channels',
        security,
        querystring: rangeQuery,
        response: { 200: realtimeSeries },
      },
      handler: (request) => insights.realtime(request.query.range),
    });

    app.get('/api/insights/auth', {
      config: admin,
      schema: {
        tags,
        summary: 'Sign-ups and sign-ins per bucket',
        security,
        querystring: rangeQuery,
        response: { 200: authSeries },
      },
      handler: (request) => insights.auth(request.query.range),
    });

    app.get('/api/insights/sizes', {
      config: admin,
      schema: {
        tags,
        summary: 'Database and storage bytes per bucket (sampled each minute), and each bucket now',
        security,
        querystring: rangeQuery,
        response: { 200: sizesSeries },
      },
      handler: (request) => insights.sizes(request.query.range),
    });

    app.get('/api/insights/tables', {
      config: admin,
      schema: {
        tags,
        summary: "The public tables' estimated rows, size and index use",
        security,
        response: { 200: tablesInsights },
      },
      handler: () => insights.tables(),
    });
  };
}
