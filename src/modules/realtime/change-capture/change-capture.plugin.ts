// Wires change capture into the app: started once the app is ready (so a test or main.ts that
// never readies the app starts nothing), stopped on close, and its admin status route.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { changeCaptureRoutes } from './change-capture.routes.js';
import type { ChangeCapture } from './change-capture.service.js';

export function changeCapturePlugin(capture: ChangeCapture): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onReady', () => capture.start());
    app.addHook('onClose', () => capture.stop());
    await app.register(changeCaptureRoutes(capture));
  };
}
