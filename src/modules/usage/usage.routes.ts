// /api/usage/mcp: the official MCP server reports every tool call here (API key); admins read the
// newest records back.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { UsageService } from './usage.service.js';
import { recordUsageBody, usageList, usageQuery } from './usage.schemas.js';

const admin = { access: 'admin' as const };
const tags = ['usage'];
const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];

export function usageRoutes(usage: UsageService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/usage/mcp', {
      config: admin,
      schema: {
        tags,
        summary: 'Record one MCP tool call (posted by the MCP server after each call)',
        security,
        body: recordUsageBody,
        response: { 200: z.object({ success: z.literal(true) }) },
      },
      handler: async (request) => {
        await usage.record(request.body.tool_name, request.body.success);
        return { success: true as const };
      },
    });

    app.get('/api/usage/mcp', {
      config: admin,
      schema: {
        tags,
        summary: 'The newest recorded MCP tool calls of one outcome (success=true by default)',
        security,
        querystring: usageQuery,
        response: { 200: usageList },
      },
      handler: async (request) => ({ records: await usage.newest(request.query.success, request.query.limit) }),
    });
  };
}
