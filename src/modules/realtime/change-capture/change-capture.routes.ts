// GET /api/realtime/change-capture: how table changes are captured, who reads the slot and what
// WAL it retains (admin).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { changeCaptureStatusSchema } from './change-capture.schemas.js';
import type { ChangeCapture } from './change-capture.service.js';

export function changeCaptureRoutes(capture: ChangeCapture): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/realtime/change-capture', {
      config: { access: 'admin' as const },
      schema: {
        tags: ['realtime'],
        summary: 'How table changes are captured (triggers or logical replication) and the slot they are read from',
        security: [{ bearerAuth: [] }],
        response: { 200: changeCaptureStatusSchema },
      },
      handler: () => capture.status(),
    });
  };
}
