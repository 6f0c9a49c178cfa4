// Wires the email module: the admin's delivery settings (SMTP, templates) and custom emails sent
// through the API with the same mailer the auth emails use.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { emailRoutes } from './email.routes.js';
import type { Mailer } from './mailer.js';
import { sendRoutes } from './send.routes.js';
import { createSendService } from './send.service.js';
import type { FindSender } from './user-sending.js';

/** `findSender` comes from the auth module (app.ts composes the two; email never imports auth). */
export function emailPlugin(deps: Deps, mailer: Mailer, findSender: FindSender): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(emailRoutes(deps, mailer));
    await app.register(sendRoutes(createSendService(deps, mailer, findSender)));
  };
}
