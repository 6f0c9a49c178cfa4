// Custom emails over HTTP: POST /api/email/send-raw (signed-in users and the API key; the anon
// key is refused before the body is read), and the admin's send limits and send log.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../core/errors.js';
import { principalOf } from '../../http/principal.js';
import {
  sendEmailRequestSchema,
  sendEmailResponseSchema,
  sendLogQuerySchema,
  sendLogSchema,
  sendSettingsSchema,
  sendSettingsUpdateSchema,
} from './send.schemas.js';
import { senderOf, type SendService } from './send.service.js';

const tags = ['email'];
const security = [{ bearerAuth: [] }];
const admin = { access: 'admin' as const };

interface SchemaIssue {
  instancePath: string;
  keyword: string;
  message?: string;
}

/** The body's validation failure as a 400 that says how to fix it. */
function invalidBody(err: Error & { validation?: SchemaIssue[] }): AppError {
  const details = (err.validation ?? []).map((i) => ({
    field: i.instancePath.replace(/^\//, '').replaceAll('/', '.') || 'body',
    rule: i.keyword,
    message: i.message ?? 'is invalid',
  }));
  return new AppError('VALIDATION_ERROR', details.map((d) => `${d.field}: ${d.message}`).join(', '), {
    details,
    nextActions:
      'Send {to, subject, html} with valid email addresses in to (and cc, bcc, replyTo if given); fix the fields named in the message.',
  });
}

export function sendRoutes(sends: SendService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/email/send-raw', {
      config: { access: 'client' },
      // The anon key passes the 'client' level; it is refused here, before the body is read.
      onRequest: (request, _reply, done) => {
        try {
          senderOf(principalOf(request));
          done();
        } catch (err) {
          done(err as Error);
        }
      },
      attachValidation: true,
      schema: {
        tags,
        summary: 'Send an HTML email through the configured SMTP (signed-in users and the API key)',
        security,
        body: sendEmailRequestSchema,
        response: { 200: sendEmailResponseSchema },
      },
      handler: async (request) => {
        if (request.validationError) throw invalidBody(request.validationError);
        await sends.send(principalOf(request), request.body);
        return {};
      },
    });

    app.get('/api/email/send-settings', {
      config: admin,
      schema: {
        tags,
        summary: 'The limits of POST /api/email/send-raw, with the defaults applied',
        security,
        response: { 200: sendSettingsSchema },
      },
      handler: () => sends.settings(),
    });

    app.put('/api/email/send-settings', {
      config: admin,
      schema: {
        tags,
        summary:
          'Change any of the send limits and user-sending rules (usersMaySend, usersMaxPerHour, userRecipients, recipientAllowList); applies at once on every server',
        security,
        body: sendSettingsUpdateSchema,
        response: { 200: sendSettingsSchema },
      },
      handler: (request) => sends.updateSettings(request.body),
    });

    app.get('/api/email/sends', {
      config: admin,
      schema: {
        tags,
        summary: 'The send log of POST /api/email/send-raw, newest first',
        security,
        querystring: sendLogQuerySchema,
        response: { 200: sendLogSchema },
      },
      handler: (request) => sends.log(request.query),
    });
  };
}
