// Admin settings of email delivery: SMTP (the password is write-only) and the templates.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../../deps.js';
import { readSmtpConfig, readTemplates, writeSmtpConfig, writeTemplate } from './email.repo.js';
import {
  smtpConfigSchema,
  smtpConfigUpdateSchema,
  templateSchema,
  templateTypeSchema,
  templateUpdateSchema,
} from './email.schemas.js';
import { effectiveSmtp } from './mailer.js';
import { DEFAULT_TEMPLATES, TEMPLATE_TYPES } from './templates.js';

const tags = ['email'];
const config = { access: 'admin' as const };
const security = [{ bearerAuth: [] }];

export function emailRoutes(deps: Deps): FastifyPluginAsyncZod {
  async function smtpView() {
    const smtp = await effectiveSmtp(deps);
    const s = smtp.settings;
    return {
      enabled: smtp.source !== 'log',
      host: s?.host ?? '',
      port: s?.port ?? 587,
      secure: s?.secure ?? false,
      username: s?.username ?? '',
      hasPassword: Boolean(s?.password),
      senderEmail: s?.senderEmail ?? '',
      senderName: s?.senderName ?? '',
      source: smtp.source,
      updatedAt: smtp.updatedAt?.toISOString() ?? null,
    };
  }

  return async (app) => {
    app.get('/api/auth/smtp-config', {
      config,
      schema: {
        tags,
        summary: 'The SMTP settings in force (never the password)',
        security,
        response: { 200: smtpConfigSchema },
      },
      handler: smtpView,
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
      handler: async (request) => {
        const body = request.body;
        const stored = await readSmtpConfig(deps.sql);
        const passwordCiphertext =
          body.password === undefined
            ? (stored?.passwordCiphertext ?? null)
            : body.password === null
              ? null
              : deps.keyring.seal(body.password);
        await writeSmtpConfig(
          deps.sql,
          {
            enabled: body.enabled,
            host: body.host ?? stored?.host ?? '',
            port: body.port ?? stored?.port ?? 587,
            secure: body.secure ?? false,
            username: body.username ?? '',
            passwordCiphertext,
            senderEmail: body.senderEmail ?? stored?.senderEmail ?? '',
            senderName: body.senderName ?? '',
          },
          deps.clock.now(),
        );
        return smtpView();
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
      handler: async () => {
        const custom = await readTemplates(deps.sql);
        return {
          data: TEMPLATE_TYPES.map((type) => ({
            type,
            ...(custom.get(type) ?? DEFAULT_TEMPLATES[type]),
            isDefault: !custom.has(type),
          })),
        };
      },
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
      handler: async (request) => {
        await writeTemplate(deps.sql, request.params.type, request.body, deps.clock.now());
        return { type: request.params.type, ...request.body, isDefault: false };
      },
    });
  };
}
