// Logs and audit over HTTP (all admin), as the reference platform routes them under /api/logs:
// the fixed paths (/audits, /audits/stats, /sources, /search, /stream, /retention, /writer) before /{source}. Paginated
// answers carry Content-Range and Preference-Applied, and are 206 when they hold part of the total.
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { LogsService, Page } from './logs.service.js';
import {
  auditSchema,
  auditStatsQuerySchema,
  auditStatsSchema,
  logSourceSchema,
  auditsQuerySchema,
  retentionSchema,
  retentionUpdateSchema,
  searchQuerySchema,
  searchResultSchema,
  sourceLogsSchema,
  sourceParamsSchema,
  sourceQuerySchema,
  statsSchema,
  streamQuerySchema,
} from './logs.schemas.js';

const tags = ['logs'];
/** What the reference's file provider lists, in its order; its MCP server asks for these names. */
const REFERENCE_SOURCES = ['insforge.logs', 'postgREST.logs', 'postgres.logs', 'function.logs'];
const security = [{ bearerAuth: [] }];
const admin = { access: 'admin' as const };
/** A comment line every so often keeps an idle tail open through proxies and idle timeouts. */
const HEARTBEAT_MS = 15_000;

function sendPage<T>(reply: FastifyReply, page: Page<T>) {
  const { items, offset, total } = page;
  const last = items.length === 0 ? offset - 1 : offset + items.length - 1;
  const partial = total === null || items.length < total;
  return reply
    .code(partial && items.length > 0 ? 206 : 200)
    .header('content-range', `${items.length === 0 ? 0 : offset}-${items.length === 0 ? -1 : last}/${total ?? '*'}`)
    .header('preference-applied', 'count=exact')
    .send(items);
}

export function logsRoutes(logs: LogsService): FastifyPluginAsyncZod {
  return async (app) => {
    const openTails = new Set<() => void>();
    app.addHook('preClose', async () => {
      for (const end of openTails) end();
    });

    app.get('/api/logs/audits', {
      config: admin,
      schema: {
        tags,
        summary: 'Audit trail of admin writes, newest first (paginated: Content-Range)',
        security,
        querystring: auditsQuerySchema,
        response: { 200: auditSchema.array(), 206: auditSchema.array() },
      },
      handler: async (request, reply) => {
        const q = request.query;
        const page = await logs.audits({
          actor: q.actor,
          action: q.action,
          module: q.module,
          from: q.start_date,
          to: q.end_date,
          limit: q.limit,
          offset: q.offset,
        });
        return sendPage(reply, page);
      },
    });

    app.get('/api/logs/audits/stats', {
      config: admin,
      schema: {
        tags,
        summary: 'Audit summary of the last `days` days: totals, actions per module, the ten newest',
        security,
        querystring: auditStatsQuerySchema,
        response: { 200: auditStatsSchema },
      },
      handler: (request) => logs.auditStats(request.query.days),
    });

    app.get('/api/logs/sources', {
      config: admin,
      schema: {
        tags,
        summary: "The reference platform's log source names (each readable at /api/logs/{name})",
        security,
        response: { 200: logSourceSchema.array() },
      },
      handler: async () => REFERENCE_SOURCES.map((name, i) => ({ id: String(i + 1), name, token: `${name}.jsonl` })),
    });

    app.get('/api/logs/search', {
      config: admin,
      schema: {
        tags,
        summary: 'Search logs by time range, level, source, function, status, user, request id and text; newest first',
        security,
        querystring: searchQuerySchema,
        response: { 200: searchResultSchema.array(), 206: searchResultSchema.array() },
      },
      handler: async (request, reply) => {
        const q = request.query;
        const page = await logs.search({
          q: q.q,
          source: q.source,
          slug: q.slug,
          level: q.level,
          status: q.status,
          userId: q.user_id,
          requestId: q.request_id,
          excludeConsole: q.exclude_console,
          from: q.start_date,
          to: q.end_date,
          limit: q.limit,
          offset: q.offset,
        });
        return sendPage(reply, page);
      },
    });

    app.get('/api/logs/stream', {
      config: admin,
      schema: {
        tags,
        summary: 'Live tail (Server-Sent Events): each new entry as a "log" event',
        security,
        querystring: streamQuerySchema,
        response: { 200: z.string().describe('text/event-stream of search results') },
      },
      handler: (request, reply) => {
        const send = (text: string) => reply.raw.write(text);
        const unsubscribe = logs.tail(request.query, (line) =>
          send(`event: log\nid: ${line.id}\ndata: ${JSON.stringify(line)}\n\n`),
        );
        reply.hijack();
        reply.raw.writeHead(200, {
          ...(reply.getHeaders() as Record<string, string>),
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-cache',
          'x-accel-buffering': 'no',
          // The connection ends with the tail: never left open as an idle keep-alive socket.
          connection: 'close',
        });
        send(': tailing\n\n');
        const heartbeat = setInterval(() => send(': heartbeat\n\n'), HEARTBEAT_MS);
        const end = () => {
          clearInterval(heartbeat);
          unsubscribe();
          openTails.delete(end);
          reply.raw.end();
        };
        openTails.add(end);
        reply.raw.on('close', end);
      },
    });

    app.get('/api/logs/retention', {
      config: admin,
      schema: { tags, summary: 'Days each kind of log is kept', security, response: { 200: retentionSchema } },
      handler: () => logs.retention(),
    });

    app.patch('/api/logs/retention', {
      config: admin,
      schema: {
        tags,
        summary: 'Change the days a kind of log is kept (older daily partitions are dropped)',
        security,
        body: retentionUpdateSchema,
        response: { 200: retentionSchema },
      },
      handler: (request) => logs.updateRetention(request.body),
    });

    app.get('/api/logs/writer', {
      config: admin,
      schema: {
        tags,
        summary: 'Entries dropped because the log buffer was full (or their batch failed), since start',
        security,
        response: { 200: statsSchema },
      },
      handler: async () => ({ droppedEntries: logs.droppedCount() }),
    });

    app.get('/api/logs/:source', {
      config: admin,
      schema: {
        tags,
        summary: 'The newest entries of a source before before_timestamp, oldest first (unknown source: none)',
        security,
        params: sourceParamsSchema,
        querystring: sourceQuerySchema,
        response: { 200: sourceLogsSchema },
      },
      handler: (request) =>
        logs.sourceEntries(request.params.source, request.query.limit, request.query.before_timestamp),
    });
  };
}
