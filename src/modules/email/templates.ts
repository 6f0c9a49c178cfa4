// The emails Plinth sends, their default wording, and how a template becomes a message: values
// are HTML-escaped into `{{name}}` placeholders; the text part is the HTML without its tags.

export const TEMPLATE_TYPES = [
  'email-verification-code',
  'email-verification-link',
  'request-otp',
  'reset-password-code',
  'reset-password-link',
] as const;
export type TemplateType = (typeof TEMPLATE_TYPES)[number];

export interface Template {
  subject: string;
  bodyHtml: string;
}

export interface TemplateValues {
  email: string;
  code?: string;
  link?: string;
  expiresInMinutes: number;
}

const codeBody = (intro: string) =>
  `<p>${intro}</p><p style="font-size:24px;font-weight:bold;letter-spacing:4px">{{code}}</p>` +
  '<p>The code expires in {{expiresInMinutes}} minutes. If you did not ask for it, ignore this email.</p>';

const linkBody = (intro: string, action: string) =>
  `<p>${intro}</p><p><a href="{{link}}">${action}</a></p>` +
  '<p>Or open this address: {{link}}</p>' +
  '<p>The link expires in {{expiresInMinutes}} minutes. If you did not ask for it, ignore this email.</p>';

export const DEFAULT_TEMPLATES: Record<TemplateType, Template> = {
  'email-verification-code': {
    subject: 'Your verification code: {{code}}',
    bodyHtml: codeBody('Use this code to verify your email address {{email}}:'),
  },
  'email-verification-link': {
    subject: 'Verify your email address',
    bodyHtml: linkBody('Confirm that {{email}} is your email address:', 'Verify email'),
  },
  'request-otp': {
    subject: 'Your sign-in code: {{code}}',
    bodyHtml: codeBody('Use this code to sign in as {{email}}:'),
  },
  'reset-password-code': {
    subject: 'Your password reset code: {{code}}',
    bodyHtml: codeBody('Use this code to reset the password of {{email}}:'),
  },
  'reset-password-link': {
    subject: 'Reset your password',
    bodyHtml: linkBody('Someone asked to reset the password of {{email}}.', 'Choose a new password'),
  },
};

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function fill(text: string, values: TemplateValues, escapeValue: (v: string) => string): string {
  return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) => {
    const value = (values as unknown as Record<string, unknown>)[name];
    return value === undefined ? whole : escapeValue(String(value));
  });
}

const toText = (html: string) =>
  html
    .replace(/<\/(p|div|h\d|li)>|<br\s*\/?>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\n{2,}/g, '\n')
    .trim();

export function renderTemplate(template: Template, values: TemplateValues) {
  const html = fill(template.bodyHtml, values, escapeHtml);
  return { subject: fill(template.subject, values, (v) => v), html, text: toText(html) };
}
