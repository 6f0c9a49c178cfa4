// The email settings' wire contract: SMTP configuration (the password is write-only) and templates.
import { z } from 'zod';
import { TEMPLATE_TYPES } from './templates.js';

export const smtpConfigSchema = z.object({
  enabled: z.boolean(),
  host: z.string(),
  port: z.number().int(),
  secure: z.boolean(),
  username: z.string(),
  hasPassword: z.boolean(),
  senderEmail: z.string(),
  senderName: z.string(),
  /** Where the effective settings come from. */
  source: z.enum(['api', 'environment', 'log']),
  updatedAt: z.string().nullable(),
});

export const smtpConfigUpdateSchema = z
  .object({
    enabled: z.boolean(),
    host: z.string().trim().min(1).max(255),
    port: z.number().int().min(1).max(65535),
    secure: z.boolean().default(false),
    username: z.string().max(255).default(''),
    /** Omitted keeps the stored password; null removes it. */
    password: z.string().max(1024).nullish(),
    senderEmail: z.email(),
    senderName: z.string().trim().max(100).default(''),
  })
  .partial({ host: true, port: true, senderEmail: true })
  .refine((c) => !c.enabled || (c.host !== undefined && c.senderEmail !== undefined), {
    message: 'host and senderEmail are required when enabled',
    path: ['host'],
  });
export type SmtpConfigUpdate = z.output<typeof smtpConfigUpdateSchema>;

export const templateTypeSchema = z.enum(TEMPLATE_TYPES);

export const templateSchema = z.object({
  type: templateTypeSchema,
  subject: z.string(),
  bodyHtml: z.string(),
  isDefault: z.boolean(),
});

export const templateUpdateSchema = z.object({
  subject: z.string().trim().min(1).max(500),
  bodyHtml: z.string().min(1).max(100_000),
});

export const testEmailBodySchema = z.object({ to: z.email({ message: 'must be a valid email address' }).max(320) });

export const templatePreviewBodySchema = templateUpdateSchema.partial().nullish();

export const templatePreviewSchema = z.object({ subject: z.string(), html: z.string(), text: z.string() });
