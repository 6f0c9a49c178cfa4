// SQL for email.smtp_config and email.templates.
import type { Queryable } from '../../core/db.js';
import type { Template, TemplateType } from './templates.js';

export interface StoredSmtpConfig {
  enabled: boolean;
  host: string;
  port: number;
  secure: boolean;
  username: string;
  passwordCiphertext: string | null;
  senderEmail: string;
  senderName: string;
  updatedAt: Date;
}

export async function readSmtpConfig(db: Queryable): Promise<StoredSmtpConfig | undefined> {
  const [row] = await db<StoredSmtpConfig[]>`
    select enabled, host, port, secure, username, password_ciphertext as "passwordCiphertext",
           sender_email as "senderEmail", sender_name as "senderName", updated_at as "updatedAt"
    from email.smtp_config`;
  return row;
}

export async function writeSmtpConfig(db: Queryable, c: Omit<StoredSmtpConfig, 'updatedAt'>, now: Date) {
  await db`
    insert into email.smtp_config (enabled, host, port, secure, username, password_ciphertext,
                                   sender_email, sender_name, updated_at)
    values (${c.enabled}, ${c.host}, ${c.port}, ${c.secure}, ${c.username}, ${c.passwordCiphertext},
            ${c.senderEmail}, ${c.senderName}, ${now})
    on conflict (singleton) do update set
      enabled = excluded.enabled, host = excluded.host, port = excluded.port, secure = excluded.secure,
      username = excluded.username, password_ciphertext = excluded.password_ciphertext,
      sender_email = excluded.sender_email, sender_name = excluded.sender_name, updated_at = excluded.updated_at`;
}

export async function readTemplates(db: Queryable): Promise<Map<TemplateType, Template>> {
  const rows = await db<(Template & { type: TemplateType })[]>`
    select type, subject, body_html as "bodyHtml" from email.templates`;
  return new Map(rows.map((r) => [r.type, { subject: r.subject, bodyHtml: r.bodyHtml }]));
}

export async function readTemplate(db: Queryable, type: TemplateType): Promise<Template | undefined> {
  const [row] = await db<Template[]>`
    select subject, body_html as "bodyHtml" from email.templates where type = ${type}`;
  return row;
}

export async function writeTemplate(db: Queryable, type: TemplateType, t: Template, now: Date): Promise<void> {
  await db`
    insert into email.templates (type, subject, body_html, updated_at)
    values (${type}, ${t.subject}, ${t.bodyHtml}, ${now})
    on conflict (type) do update set subject = excluded.subject, body_html = excluded.body_html,
      updated_at = excluded.updated_at`;
}
