// The wire contract of the Razorpay routes: the client's seven calls (shapes as the official
// client's schemas, @insforge/shared-schemas 1.2.1) and the admin side per environment.
import { z } from 'zod';
import { environmentSchema } from '../payments.schemas.js';

/** Keys of notes Plinth writes itself (billing subject, local order id); callers may not set them. */
export const RESERVED_NOTES_PREFIX = 'svc_';

const subjectSchema = z.strictObject({
  type: z.string().trim().min(1).max(100),
  id: z.string().trim().min(1).max(255),
});
const notesSchema = z
  .record(z.string(), z.string())
  .refine((n) => !Object.keys(n).some((k) => k.startsWith(RESERVED_NOTES_PREFIX)), {
    message: `Notes keys starting with ${RESERVED_NOTES_PREFIX} are reserved`,
  });
const currencySchema = z
  .string()
  .trim()
  .regex(/^[a-zA-Z]{3}$/, 'Currency must be a three-letter ISO currency code')
  .transform((c) => c.toUpperCase());
const customerFields = {
  customerName: z.string().trim().min(1).max(255).nullish(),
  customerEmail: z.string().trim().pipe(z.email()).nullish(),
  customerContact: z.string().trim().min(1).max(32).nullish(),
  callbackUrl: z.string().trim().pipe(z.url()).nullish(),
};
const nonEmpty = (what: string) => z.string().trim().min(1, `${what} is required`);

export const rzpEnvParams = z.object({ environment: environmentSchema });
export const rzpSubscriptionParams = rzpEnvParams.extend({ subscriptionId: nonEmpty('Razorpay subscription id') });
export const rzpItemParams = rzpEnvParams.extend({ itemId: nonEmpty('Razorpay item id') });

export const orderCreateSchema = z.strictObject({
  amount: z.number().int().positive(),
  currency: currencySchema,
  receipt: z.string().trim().min(1).max(40).nullish(),
  description: z.string().trim().max(2048).nullish(),
  subject: subjectSchema.optional(),
  ...customerFields,
  notes: notesSchema.optional(),
});
export const orderVerifySchema = z.strictObject({
  orderId: nonEmpty('Razorpay order id'),
  paymentId: nonEmpty('Razorpay payment id'),
  signature: nonEmpty('Razorpay signature'),
});
const positiveInt = z.number().int().positive();
export const subscriptionCreateSchema = z
  .strictObject({
    planId: nonEmpty('Razorpay plan id'),
    totalCount: positiveInt.optional(),
    endAt: positiveInt.optional(),
    quantity: positiveInt.optional(),
    startAt: positiveInt.optional(),
    expireBy: positiveInt.optional(),
    customerNotify: z.boolean().optional(),
    offerId: z.string().trim().min(1).max(255).nullish(),
    description: z.string().trim().max(2048).nullish(),
    subject: subjectSchema,
    ...customerFields,
    notes: notesSchema.optional(),
  })
  .refine((b) => b.totalCount !== undefined || b.endAt !== undefined, {
    message: 'Either totalCount or endAt is required',
  });
export const subscriptionVerifySchema = z.strictObject({
  subscriptionId: nonEmpty('Razorpay subscription id'),
  paymentId: nonEmpty('Razorpay payment id'),
  signature: nonEmpty('Razorpay signature'),
});
export const cancelSchema = z.strictObject({ cancelAtCycleEnd: z.boolean().default(false) });
export const emptySchema = z.strictObject({});

export type OrderCreate = z.output<typeof orderCreateSchema>;
export type SubscriptionCreate = z.output<typeof subscriptionCreateSchema>;

const date = z.date().nullable();
const notesOut = z.record(z.string(), z.string());

export const orderSchema = z.object({
  id: z.string(),
  environment: environmentSchema,
  status: z.enum(['initialized', 'created', 'attempted', 'paid', 'failed']),
  subjectType: z.string().nullable(),
  subjectId: z.string().nullable(),
  customerName: z.string().nullable(),
  customerEmail: z.string().nullable(),
  customerContact: z.string().nullable(),
  orderId: z.string().nullable(),
  receipt: z.string().nullable(),
  amount: z.number(),
  amountPaid: z.number(),
  amountDue: z.number(),
  currency: z.string(),
  attempts: z.number(),
  verifiedPaymentId: z.string().nullable(),
  verifiedAt: date,
  notes: notesOut,
  lastError: z.string().nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
});
export type OrderRow = z.output<typeof orderSchema>;

export const subscriptionSchema = z.object({
  environment: environmentSchema,
  subscriptionId: z.string(),
  planId: z.string(),
  customerId: z.string().nullable(),
  subjectType: z.string().nullable(),
  subjectId: z.string().nullable(),
  status: z.string(),
  currentStart: date,
  currentEnd: date,
  endedAt: date,
  chargeAt: date,
  startAt: date,
  endAt: date,
  quantity: z.number().nullable(),
  totalCount: z.number().nullable(),
  authAttempts: z.number().nullable(),
  paidCount: z.number().nullable(),
  remainingCount: z.number().nullable(),
  shortUrl: z.string().nullable(),
  hasScheduledChanges: z.boolean(),
  changeScheduledAt: date,
  offerId: z.string().nullable(),
  authorizationPaymentId: z.string().nullable(),
  authorizationVerifiedAt: date,
  notes: notesOut,
  providerCreatedAt: date,
  syncedAt: z.date(),
  createdAt: z.date(),
  updatedAt: z.date(),
});
export type SubscriptionRow = z.output<typeof subscriptionSchema>;

const prefillSchema = z.object({
  name: z.string().optional(),
  email: z.string().optional(),
  contact: z.string().optional(),
});
export const orderCreatedSchema = z.object({
  order: orderSchema,
  checkoutOptions: z.object({
    key: z.string(),
    amount: z.number(),
    currency: z.string(),
    order_id: z.string(),
    description: z.string().optional(),
    callback_url: z.string().optional(),
    prefill: prefillSchema,
  }),
});
export const subscriptionCreatedSchema = z.object({
  subscription: subscriptionSchema,
  checkoutOptions: z.object({
    key: z.string(),
    subscription_id: z.string(),
    description: z.string().optional(),
    callback_url: z.string().optional(),
    prefill: prefillSchema,
  }),
});

// Admin side.

export const rzpConfigBodySchema = z.strictObject({
  keyId: z.string().trim().min(1),
  keySecret: z.string().trim().min(1),
  webhookSecret: z.string().trim().min(1).optional(),
});
export const rzpKeysSchema = z.object({
  keys: z.array(
    z.object({
      environment: environmentSchema,
      keyType: z.enum(['api_key', 'api_secret', 'webhook_secret']),
      value: z.string().nullable(),
    }),
  ),
});
export const rzpConnectionSchema = z.object({
  environment: environmentSchema,
  status: z.enum(['unconfigured', 'connected']),
  accountId: z.string().nullable(),
  maskedKey: z.string().nullable(),
  webhookUrl: z.string(),
  webhookSecretConfigured: z.boolean(),
  webhookRotatedAt: date,
  previousWebhookSecretValidUntil: date,
  lastSyncedAt: date,
  lastSyncStatus: z.enum(['succeeded', 'failed']).nullable(),
  lastSyncError: z.string().nullable(),
  lastSyncCounts: z.record(z.string(), z.number()).nullable(),
});
export const rzpWebhookSchema = z.object({
  connection: rzpConnectionSchema,
  webhookUrl: z.string(),
  webhookSecret: z.string(),
});

export const itemSchema = z.object({
  environment: environmentSchema,
  itemId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  active: z.boolean(),
  amount: z.number().nullable(),
  unitAmount: z.number().nullable(),
  currency: z.string(),
  type: z.string().nullable(),
  providerCreatedAt: date,
  syncedAt: z.date(),
});
export const planSchema = z.object({
  environment: environmentSchema,
  planId: z.string(),
  itemId: z.string(),
  period: z.string(),
  interval: z.number(),
  amount: z.number().nullable(),
  unitAmount: z.number().nullable(),
  currency: z.string(),
  active: z.boolean(),
  notes: notesOut,
  providerCreatedAt: date,
  syncedAt: z.date(),
});
export type ItemRow = z.output<typeof itemSchema>;
export type PlanRow = z.output<typeof planSchema>;
export const itemCreateSchema = z.strictObject({
  name: z.string().trim().min(1).max(255),
  description: z.string().trim().max(2048).nullish(),
  amount: z.number().int().positive(),
  currency: currencySchema,
});
export const itemUpdateSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(255).optional(),
    description: z.string().trim().max(2048).nullish(),
    amount: z.number().int().positive().optional(),
    currency: currencySchema.optional(),
    active: z.boolean().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, 'At least one item field is required');
export const planCreateSchema = z.strictObject({
  period: z.enum(['daily', 'weekly', 'monthly', 'yearly']),
  interval: z.number().int().positive(),
  item: itemCreateSchema,
  notes: notesSchema.optional(),
});
export type ItemCreate = z.output<typeof itemCreateSchema>;
export type ItemUpdate = z.output<typeof itemUpdateSchema>;
export type PlanCreate = z.output<typeof planCreateSchema>;

export const rzpCustomerSchema = z.object({
  environment: environmentSchema,
  customerId: z.string(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  contact: z.string().nullable(),
  subjectType: z.string().nullable(),
  subjectId: z.string().nullable(),
  syncedAt: z.date(),
});
export type CustomerRow = z.output<typeof rzpCustomerSchema>;
export const transactionSchema = z.object({
  environment: environmentSchema,
  objectId: z.string(),
  type: z.enum(['payment', 'refund', 'invoice']),
  status: z.string(),
  orderId: z.string().nullable(),
  paymentId: z.string().nullable(),
  subscriptionId: z.string().nullable(),
  invoiceId: z.string().nullable(),
  customerId: z.string().nullable(),
  subjectType: z.string().nullable(),
  subjectId: z.string().nullable(),
  amount: z.number().nullable(),
  amountRefunded: z.number(),
  currency: z.string().nullable(),
  method: z.string().nullable(),
  email: z.string().nullable(),
  contact: z.string().nullable(),
  errorDescription: z.string().nullable(),
  providerCreatedAt: date,
  createdAt: z.date(),
  updatedAt: z.date(),
});
export type TransactionRow = z.output<typeof transactionSchema>;
export const limitQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(100).default(50) });
export const subjectListQuery = z
  .strictObject({
    subjectType: z.string().trim().min(1).max(100).optional(),
    subjectId: z.string().trim().min(1).max(255).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(50),
  })
  .refine((q) => (q.subjectType === undefined) === (q.subjectId === undefined), {
    message: 'subjectType and subjectId must be provided together',
  });
export const rzpSyncResultSchema = z.object({
  results: z.array(
    z.object({
      environment: environmentSchema,
      status: z.enum(['succeeded', 'failed']),
      counts: z.record(z.string(), z.number()).nullable(),
      error: z.string().nullable(),
    }),
  ),
});
