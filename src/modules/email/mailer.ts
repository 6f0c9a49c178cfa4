// Sends Plinth's emails: over SMTP (settings from the admin API, else the environment) or, with
// neither, to the log, so that a developer running `npm start` can still read codes and links.
import type { Transporter } from 'nodemailer';
import type { Config } from '../../config.js';
import type { Sql } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import type { Keyring } from '../../core/keyring.js';
import { readSmtpConfig, readTemplate } from './email.repo.js';
import { DEFAULT_TEMPLATES, renderTemplate, type TemplateType, type TemplateValues } from './templates.js';

export interface SmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  username: string;
  password: string | null;
  senderEmail: string;
  senderName: string;
}

export type EffectiveSmtp =
  | { source: 'api' | 'environment'; settings: SmtpSettings; updatedAt: Date | null }
  | { source: 'log'; settings: null; updatedAt: Date | null };

export interface OutgoingEmail {
  type: TemplateType;
  to: string;
  values: TemplateValues;
}

/** A message whose content is given by the caller (POST /api/email/send-raw). */
export interface HtmlEmail {
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo?: string;
  subject: string;
  html: string;
}

/** What SMTP made of an HTML email; 'refused' keeps the server's (or connection's) reason. */
export type HtmlDelivery =
  | { outcome: 'not-configured' }
  | { outcome: 'accepted'; acceptedCount: number }
  | { outcome: 'refused'; reason: string; connectionFailed: boolean };

export interface Mailer {
  send(email: OutgoingEmail): Promise<void>;
  /** True when SMTP settings are in force (from the admin API or the environment). */
  isConfigured(): Promise<boolean>;
  /** Sends the HTML as given, from the configured sender; never falls back to the log. */
  sendHtml(email: HtmlEmail): Promise<HtmlDelivery>;
}

/** A line for the log transport: who, what, and the code or link the message carries. */
export interface LoggedEmail {
  to: string;
  subject: string;
  code?: string;
  link?: string;
}

export interface MailerDeps {
  sql: Sql;
  keyring: Keyring;
  config: Config;
}

/** The settings in force: the admin API's when enabled, else the environment's, else the log. */
export async function effectiveSmtp(deps: MailerDeps): Promise<EffectiveSmtp> {
  const stored = await readSmtpConfig(deps.sql);
  if (stored?.enabled) {
    const password = stored.passwordCiphertext ? deps.keyring.open(stored.passwordCiphertext) : null;
    return { source: 'api', settings: { ...stored, password }, updatedAt: stored.updatedAt };
  }
  if (deps.config.smtp) return { source: 'environment', settings: deps.config.smtp, updatedAt: null };
  return { source: 'log', settings: null, updatedAt: stored?.updatedAt ?? null };
}

/** nodemailer's codes for a server that could not be reached or spoken to (not a refusal). */
const CONNECTION_FAILURES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ETLS', 'EAUTH', 'EPROTOCOL']);

export function createMailer(deps: MailerDeps, log: (email: LoggedEmail) => void): Mailer {
  const transports = new Map<string, Transporter>();

  // nodemailer (about 2 MB resident) is loaded on the first email sent over SMTP, not at start.
  async function transportFor(s: SmtpSettings): Promise<Transporter> {
    const key = JSON.stringify(s);
    let transport = transports.get(key);
    if (!transport) {
      const { default: nodemailer } = await import('nodemailer');
      transport = nodemailer.createTransport({
        host: s.host,
        port: s.port,
        secure: s.secure,
        auth: s.username ? { user: s.username, pass: s.password ?? '' } : undefined,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 20_000,
      });
      for (const old of transports.values()) old.close();
      transports.clear();
      transports.set(key, transport);
    }
    return transport;
  }

  const senderOf = (s: SmtpSettings) => (s.senderName ? { name: s.senderName, address: s.senderEmail } : s.senderEmail);

  return {
    async isConfigured() {
      return (await effectiveSmtp(deps)).source !== 'log';
    },

    async sendHtml(email) {
      const smtp = await effectiveSmtp(deps);
      if (smtp.source === 'log') return { outcome: 'not-configured' };
      try {
        const info = await (await transportFor(smtp.settings)).sendMail({
          from: senderOf(smtp.settings),
          to: email.to,
          cc: email.cc,
          bcc: email.bcc,
          replyTo: email.replyTo,
          subject: email.subject,
          html: email.html,
        });
        return { outcome: 'accepted', acceptedCount: info.accepted?.length ?? 0 };
      } catch (err) {
        const failure = err as { message?: string; code?: string };
        return {
          outcome: 'refused',
          reason: failure.message ?? String(err),
          connectionFailed: CONNECTION_FAILURES.has(failure.code ?? ''),
        };
      }
    },

    async send({ type, to, values }) {
      const [smtp, custom] = await Promise.all([effectiveSmtp(deps), readTemplate(deps.sql, type)]);
      const message = renderTemplate(custom ?? DEFAULT_TEMPLATES[type], values);
      if (smtp.source === 'log') {
        log({ to, subject: message.subject, code: values.code, link: values.link });
        return;
      }
      const { settings } = smtp;
      try {
        await (await transportFor(settings)).sendMail({
          from: senderOf(settings),
          to,
          subject: message.subject,
          html: message.html,
          text: message.text,
        });
      } catch (err) {
        throw new AppError('EMAIL_DELIVERY_FAILED', 'The email could not be delivered.', {
          cause: err,
          nextActions: 'Try again in a moment; if it keeps failing, the admin should check the SMTP settings.',
        });
      }
    },
  };
}
