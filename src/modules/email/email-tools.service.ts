// The admin's email tools: a test email through the SMTP settings in force, and a template
// rendered with sample values (the same renderer real emails use), so settings can be checked.
import type { Deps } from '../../deps.js';
import { notConfigured, smtpRefused } from './delivery-errors.js';
import { readTemplate } from './email.repo.js';
import type { Mailer } from './mailer.js';
import { DEFAULT_TEMPLATES, renderTemplate, type Template, type TemplateType } from './templates.js';

const TEST_SUBJECT = 'Plinth test email';
const TEST_BODY =
  '<p>This is a test email from your Plinth project.</p><p>If you can read it, the SMTP settings work.</p>';

/** Values a preview fills in; the link points at this server, as a real one would. */
const sampleValues = (apiBaseUrl: string) => ({
  email: 'jane.doe@example.com',
  code: '123456',
  link: `${apiBaseUrl}/api/auth/email/verify-link?token=sample-token`,
  expiresInMinutes: 15,
});

export function createEmailToolsService(deps: Pick<Deps, 'sql' | 'config'>, mailer: Mailer) {
  return {
    /** Sends the test message to `to`; throws what the SMTP server (or its absence) made of it. */
    async sendTestEmail(to: string): Promise<void> {
      const delivery = await mailer.sendHtml({ to: [to], cc: [], bcc: [], subject: TEST_SUBJECT, html: TEST_BODY });
      if (delivery.outcome === 'not-configured') throw notConfigured();
      if (delivery.outcome === 'refused') throw smtpRefused(delivery);
    },

    /** The template as given (or as stored, else the default) rendered with sample values. */
    async previewTemplate(type: TemplateType, draft: Partial<Template>) {
      const stored = (await readTemplate(deps.sql, type)) ?? DEFAULT_TEMPLATES[type];
      const template = { subject: draft.subject ?? stored.subject, bodyHtml: draft.bodyHtml ?? stored.bodyHtml };
      return renderTemplate(template, sampleValues(deps.config.apiBaseUrl));
    },
  };
}
