// The email module's face: its plugin (email settings and sending email through the API) and the
// mailer other modules send through.
export { emailPlugin } from './email.plugin.js';
export { createMailer, type Mailer } from './mailer.js';
export type { TemplateType } from './templates.js';
