// Admin settings of email delivery: SMTP (the password is write-only) with a test email, and the
// templates with a preview.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../../deps.js';
import { createEmailSettingsService } from './email-settings.service.js';
import { createEmailToolsService } from './email-tools.service.js';
import {
  smtpConfigSchema,
  smtpConfigUpdateSchema,
  templatePreviewBodySchema,
  templatePreviewSchema,
  templateSchema,
  templateTypeSchema,
  templateUpdateSchema,
  testEmailBodySchema,
} from './email.schemas.js';
import type { Mailer } from './mailer.js';

const tags = ['email'];
const config = { access: 'admin' as const };
const security = [{ bearerAuth: [] }];

export function emailRoutes(deps: Deps, mailer: Mailer): FastifyPluginAsyncZod {
  const settings = createEmailSettingsService(deps);
  const tools = createEmailToolsService(deps, mailer);

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

    app.post('/api/auth/smtp-config/test', {
      config,
      schema: {
        tags,
        summary: 'Send a test email through the SMTP settings in force',
        security,
        body: testEmailBodySchema,
        response: { 200: z.object({ success: z.boolean(), message: z.string() }) },
      },
      handler: async (request) => {
        await tools.sendTestEmail(request.body.to);
        return { success: true, message: `A test email was accepted for ${request.body.to}.` };
      },
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

    app.post('/api/auth/email-templates/:type/preview', {
      config,
      schema: {
        tags,
        summary: 'Render a template (the draft given, else the one in force) with sample values',
        security,
        params: z.object({ type: templateTypeSchema }),
        body: templatePreviewBodySchema,
        response: { 200: templatePreviewSchema },
      },
      handler: (request) => tools.previewTemplate(request.params.type, request.body ?? {}),
    });
  };
}
