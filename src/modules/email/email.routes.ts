// Admin settings of email delivery: SMTP (the password is write-only) and the templates.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../../deps.js';
import { createEmailSettingsService } from './email-settings.service.js';
import {
  smtpConfigSchema,
  smtpConfigUpdateSchema,
  templateSchema,
  templateTypeSchema,
  templateUpdateSchema,
} from './email.schemas.js';

const tags = ['email'];
const config = { access: 'admin' as const };
const security = [{ bearerAuth: [] }];

export function emailRoutes(deps: Deps): FastifyPluginAsyncZod {
  const settings = createEmailSettingsService(deps);

  return async (app) => {
    app.get('/api/auth/smtp-config', {
      config,
      schema: {
        tags,
        summary: 'The SMTP settings in force (never the password)',
        security,
        response: { 200: smtpConfigSchema },
      },
      handler: () => settings.smtpView(),
    });

    app.put('/api/auth/smtp-config', {
      config,
      schema: {
        tags,
        summary: 'Set SMTP settings (they win over the environment while enabled)',
        security,
        body: smtpConfigUpdateSchema,
        response: { 200: smtpConfigSchema },
      },
      handler: (request) => settings.updateSmtp(request.body),
    });

    app.get('/api/auth/email-templates', {
      config,
      schema: {
        tags,
        summary: 'Every email template (custom or default)',
        security,
        response: { 200: z.object({ data: z.array(templateSchema) }) },
      },
      handler: async () => ({ data: await settings.listTemplates() }),
    });

    app.put('/api/auth/email-templates/:type', {
      config,
      schema: {
        tags,
        summary: 'Replace one email template ({{code}}, {{link}}, {{email}}, {{expiresInMinutes}} are filled in)',
        security,
        params: z.object({ type: templateTypeSchema }),
        body: templateUpdateSchema,
        response: { 200: templateSchema },
      },
      handler: (request) => settings.replaceTemplate(request.params.type, request.body),
    });
  };
}
