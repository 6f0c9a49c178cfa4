// The admin's email delivery settings: the SMTP settings in force (the password sealed, never
// shown) and the templates, custom or default.
import type { Deps } from '../../deps.js';
import { readSmtpConfig, readTemplates, writeSmtpConfig, writeTemplate } from './email.repo.js';
import type { SmtpConfigUpdate } from './email.schemas.js';
import { effectiveSmtp } from './mailer.js';
import { DEFAULT_TEMPLATES, TEMPLATE_TYPES, type Template, type TemplateType } from './templates.js';

export function createEmailSettingsService(deps: Deps) {
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

  /** Stores the update (an absent password keeps the stored one, null clears it); the new view. */
  async function updateSmtp(body: SmtpConfigUpdate) {
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
  }

  async function listTemplates() {
    const custom = await readTemplates(deps.sql);
    return TEMPLATE_TYPES.map((type) => ({
      type,
      ...(custom.get(type) ?? DEFAULT_TEMPLATES[type]),
      isDefault: !custom.has(type),
    }));
  }

  async function replaceTemplate(type: TemplateType, template: Template) {
    await writeTemplate(deps.sql, type, template, deps.clock.now());
    return { type, ...template, isDefault: false };
  }

  return { smtpView, updateSmtp, listTemplates, replaceTemplate };
}
