// The wire contract of custom emails: POST /api/email/send-raw (as the official client sends it),
// the admin's send limits, and the send log.
import { z } from 'zod';

/** Hard ceilings of the settings (the admin chooses the effective limits below these). */
export const CEILINGS = { recipients: 1000, bodyBytes: 10 * 1024 * 1024, perHour: 1_000_000 } as const;

const address = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email({ error: 'is not a valid email address' }));

/** One address or a list of them (the client passes either). */
const addresses = z.union([
  address,
  z
    .array(address)
    .min(1, { error: 'needs at least one address' })
    .max(CEILINGS.recipients, { error: `has more than ${CEILINGS.recipients} addresses` }),
]);

export const sendEmailRequestSchema = z.object({
  to: addresses,
  subject: z.string().trim().min(1, { error: 'is required' }).max(500, { error: 'is longer than 500 characters' }),
  /** Sent as given; it only has to contain something besides white space. */
  html: z.string().refine((html) => html.trim().length > 0, { error: 'is required' }),
  cc: addresses.optional(),
  bcc: addresses.optional(),
  /** A sender display name in the reference platform; its SMTP provider ignores it, and so does Plinth. */
  from: z.string().trim().max(100, { error: 'is longer than 100 characters' }).optional(),
  replyTo: address.optional(),
});
export type SendEmailRequest = z.output<typeof sendEmailRequestSchema>;

export const sendEmailResponseSchema = z.object({});

export const USER_RECIPIENTS = ['any', 'self', 'allow-list'] as const;

/** An allow-list entry: an address, or `@domain` for every address of that domain. */
const allowListEntry = z
  .string()
  .trim()
  .toLowerCase()
  .refine((v) => z.email().safeParse(v).success || /^@[a-z0-9.-]+\.[a-z]{2,}$/.test(v), {
    error: 'is neither an email address nor @domain',
  });

export const sendSettingsSchema = z.object({
  /** Addresses in to, cc and bcc together. */
  maxRecipients: z.number().int(),
  /** UTF-8 bytes of the HTML. */
  maxBodyBytes: z.number().int(),
  /** Messages one sender may send in an hour (fixed one-hour windows). */
  maxPerHour: z.number().int(),
  /** Whether signed-in users may send at all (the API key and admins always may). */
  usersMaySend: z.boolean(),
  /** Messages all users together may send in an hour. */
  usersMaxPerHour: z.number().int(),
  /** Whom users may send to: anyone, only their own address, or the allow-list. */
  userRecipients: z.enum(USER_RECIPIENTS),
  /** Addresses (or `@domain`s) users may send to when userRecipients is 'allow-list'. */
  recipientAllowList: z.array(z.string()),
  /** False while the defaults apply. */
  custom: z.boolean(),
  updatedAt: z.string().nullable(),
});
export type SendSettingsView = z.infer<typeof sendSettingsSchema>;

export const sendSettingsUpdateSchema = z
  .strictObject({
    maxRecipients: z.number().int().min(1).max(CEILINGS.recipients),
    maxBodyBytes: z.number().int().min(1).max(CEILINGS.bodyBytes),
    maxPerHour: z.number().int().min(1).max(CEILINGS.perHour),
    usersMaySend: z.boolean(),
    usersMaxPerHour: z.number().int().min(1).max(CEILINGS.perHour),
    userRecipients: z.enum(USER_RECIPIENTS),
    recipientAllowList: z.array(allowListEntry).max(CEILINGS.recipients),
  })
  .partial();
export type SendSettingsUpdate = z.infer<typeof sendSettingsUpdateSchema>;

export const sendLogQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

export const SENDER_KINDS = ['user', 'admin', 'api-key'] as const;
export type SenderKind = (typeof SENDER_KINDS)[number];

export const sendRecordSchema = z.object({
  id: z.string(),
  sentAt: z.string(),
  sender: z.object({ kind: z.enum(SENDER_KINDS), id: z.string() }),
  recipientCount: z.number().int(),
  acceptedCount: z.number().int(),
  status: z.enum(['accepted', 'refused']),
  error: z.string().nullable(),
});
export type SendRecordView = z.infer<typeof sendRecordSchema>;

export const sendLogSchema = z.object({
  data: z.array(sendRecordSchema),
  pagination: z.object({ offset: z.number(), limit: z.number(), total: z.number() }),
});
