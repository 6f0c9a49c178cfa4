// Schedules over HTTP (all admin), as the reference platform routes them under /api/schedules:
// /config and /preview are registered before /{id}; /{id}/logs reads the run history, /{id}/run
// runs one now.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  createdScheduleSchema,
  createScheduleSchema,
  logsQuerySchema,
  messageSchema,
  previewQuerySchema,
  previewSchema,
  runLogSchema,
  runLogsSchema,
  scheduleIdParamsSchema,
  scheduleSchema,
  schedulesConfigSchema,
  schedulesConfigUpdateSchema,
  updatedScheduleSchema,
  updateScheduleSchema,
} from './schedules.schemas.js';
import type { SchedulesService } from './schedules.service.js';

const tags = ['schedules'];
const security = [{ bearerAuth: [] }];
const admin = { access: 'admin' as const };

export function schedulesRoutes(schedules: SchedulesService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/schedules', {
      config: admin,
      schema: { tags, summary: 'Every schedule, newest first', security, response: { 200: scheduleSchema.array() } },
      handler: () => schedules.list(),
    });

    app.get('/api/schedules/config', {
      config: admin,
      schema: {
        tags,
        summary: 'Days of run history kept (null: all)',
        security,
        response: { 200: schedulesConfigSchema },
      },
      handler: () => schedules.config(),
    });

    app.patch('/api/schedules/config', {
      config: admin,
      schema: {
        tags,
        summary: 'Change the days of run history kept (null: keep all)',
        security,
        body: schedulesConfigUpdateSchema,
        response: { 200: messageSchema },
      },
      handler: (request) => schedules.updateConfig(request.body),
    });

    app.get('/api/schedules/preview', {
      config: admin,
      schema: {
        tags,
        summary: 'The next due times of a cron expression (or "<n> seconds") in a time zone, from now',
        security,
        querystring: previewQuerySchema,
        response: { 200: previewSchema },
      },
      handler: (request) =>
        schedules.previewRuns(request.query.cronSchedule, request.query.timeZone, request.query.count),
    });

    app.post('/api/schedules', {
      config: admin,
      schema: {
        tags,
        summary:
          'Create a schedule: a name (a required label), a cron expression (5 fields, in timeZone) or "<n> seconds", and its target (functionSlug or functionUrl)',
        security,
        body: createScheduleSchema,
        response: { 201: createdScheduleSchema },
      },
      handler: async (request, reply) => reply.code(201).send(await schedules.create(request.body)),
    });

    app.get('/api/schedules/:id', {
      config: admin,
      schema: {
        tags,
        summary: 'One schedule (headers as templates)',
        security,
        params: scheduleIdParamsSchema,
        response: { 200: scheduleSchema },
      },
      handler: (request) => schedules.get(request.params.id),
    });

    app.get('/api/schedules/:id/logs', {
      config: admin,
      schema: {
        tags,
        summary: 'Run history of a schedule, newest first (limit 1-100, default 50; offset)',
        security,
        params: scheduleIdParamsSchema,
        querystring: logsQuerySchema,
        response: { 200: runLogsSchema },
      },
      handler: (request) => schedules.logs(request.params.id, request.query),
    });

    app.post('/api/schedules/:id/run', {
      config: admin,
      schema: {
        tags,
        summary: 'Run a schedule now (paused or not); answers the run, recorded in its history, once it ended',
        security,
        params: scheduleIdParamsSchema,
        response: { 200: runLogSchema },
      },
      handler: (request, reply) => {
        // The run stops (recorded as failed) when the caller goes away before the answer.
        const stop = new AbortController();
        reply.raw.once('close', () => stop.abort());
        return schedules.runNow(request.params.id, stop.signal);
      },
    });

    app.patch('/api/schedules/:id', {
      config: admin,
      schema: {
        tags,
        summary: 'Change a schedule; isActive alone pauses or resumes it',
        security,
        params: scheduleIdParamsSchema,
        body: updateScheduleSchema,
        response: { 200: updatedScheduleSchema },
      },
      handler: (request) => schedules.update(request.params.id, request.body),
    });

    app.delete('/api/schedules/:id', {
      config: admin,
      schema: {
        tags,
        summary: 'Delete a schedule and its history',
        security,
        params: scheduleIdParamsSchema,
        response: { 200: messageSchema },
      },
      handler: (request) => schedules.remove(request.params.id),
    });
  };
}
