// The email module's face: its plugin (sending email through the API) and the mailer other
// modules send through.
export { emailRoutes as emailPlugin } from './email.routes.js';
export { createMailer, type Mailer } from './mailer.js';
export type { TemplateType } from './templates.js';
