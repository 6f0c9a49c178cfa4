// The wire contract of the payments API (spec-era paths and `processor…` field names).
import { z } from 'zod';

export const environmentSchema = z.enum(['test', 'live']);
export const envParams = z.object({ environment: environmentSchema });

const metadataSchema = z.record(z.string().max(40), z.string().max(500));
const idempotencyKeySchema = z.string().min(1).max(200);
const timestamp = z.date().nullable();

export const configBodySchema = z.strictObject({
  secretKey: z.string().trim().min(1),
  webhookSecret: z.string().trim().min(1).optional(),
});
export const keysSchema = z.object({
  keys: z.array(z.object({ environment: environmentSchema, hasKey: z.boolean(), maskedKey: z.string().nullable() })),
});
export const connectionSchema = z.object({
  environment: environmentSchema,
  status: z.enum(['unconfigured', 'connected', 'error']),
  processorAccountId: z.string().nullable(),
  processorAccountEmail: z.string().nullable(),
  accountLivemode: z.boolean().nullable(),
  webhookEndpointId: z.string().nullable(),
  webhookEndpointUrl: z.string().nullable(),
  webhookConfiguredAt: timestamp,
  maskedKey: z.string().nullable(),
  lastSyncedAt: timestamp,
  lastSyncStatus: z.enum(['succeeded', 'failed']).nullable(),
  lastSyncError: z.string().nullable(),
  lastSyncCounts: z.record(z.string(), z.number()).nullable(),
});

export const productSchema = z.object({
  environment: environmentSchema,
  processorProductId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  active: z.boolean(),
  defaultPriceId: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  syncedAt: z.date(),
});
export const priceSchema = z.object({
  environment: environmentSchema,
  processorPriceId: z.string(),
  processorProductId: z.string().nullable(),
  active: z.boolean(),
  currency: z.string(),
  unitAmount: z.number().nullable(),
  unitAmountDecimal: z.string().nullable(),
  type: z.string(),
  lookupKey: z.string().nullable(),
  billingScheme: z.string().nullable(),
  taxBehavior: z.string().nullable(),
  recurringInterval: z.string().nullable(),
  recurringIntervalCount: z.number().nullable(),
  metadata: z.record(z.string(), z.string()),
  syncedAt: z.date(),
});

const taxBehaviorSchema = z.enum(['exclusive', 'inclusive', 'unspecified']);
const descriptionSchema = z.string().max(5000).nullable();
const lookupKeySchema = z.string().min(1).max(200).nullable();

export const productCreateSchema = z.strictObject({
  name: z.string().trim().min(1),
  description: descriptionSchema.optional(),
  active: z.boolean().optional(),
  metadata: metadataSchema.optional(),
  idempotencyKey: idempotencyKeySchema.optional(),
});
export const productUpdateSchema = z
  .strictObject({
    name: z.string().trim().min(1).optional(),
    description: descriptionSchema.optional(),
    active: z.boolean().optional(),
    metadata: metadataSchema.optional(),
  })
  .refine((b) => Object.keys(b).length > 0, 'At least one product field is required');

export const priceCreateSchema = z.strictObject({
  processorProductId: z.string().trim().min(1),
  currency: z
    .string()
    .regex(/^[a-zA-Z]{3}$/, 'must be a 3-letter currency code')
    .transform((c) => c.toLowerCase()),
  unitAmount: z.number().int().min(0),
  lookupKey: lookupKeySchema.optional(),
  active: z.boolean().optional(),
  recurring: z
    .strictObject({
      interval: z.enum(['day', 'week', 'month', 'year']),
      intervalCount: z.number().int().positive().optional(),
    })
    .optional(),
  taxBehavior: taxBehaviorSchema.optional(),
  metadata: metadataSchema.optional(),
  idempotencyKey: idempotencyKeySchema.optional(),
});
export const priceUpdateSchema = z
  .strictObject({
    active: z.boolean().optional(),
    lookupKey: lookupKeySchema.optional(),
    taxBehavior: taxBehaviorSchema.optional(),
    metadata: metadataSchema.optional(),
  })
  .refine((b) => Object.keys(b).length > 0, 'At least one price field is required');

export const productIdParams = envParams.extend({ productId: z.string().trim().min(1) });
export const priceIdParams = envParams.extend({ priceId: z.string().trim().min(1) });
export const pricesQuery = z.strictObject({ processorProductId: z.string().min(1).optional() });

export type ProductCreate = z.output<typeof productCreateSchema>;
export type ProductUpdate = z.output<typeof productUpdateSchema>;
export type PriceCreate = z.output<typeof priceCreateSchema>;
export type PriceUpdate = z.output<typeof priceUpdateSchema>;

export const subscriptionsQuery = z
  .strictObject({
    subjectType: z.string().min(1).max(100).optional(),
    subjectId: z.string().min(1).max(255).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(50),
  })
  .refine(
    (q) => (q.subjectType === undefined) === (q.subjectId === undefined),
    'subjectType and subjectId must be provided together',
  );

/** The billing subject a list is filtered by (both query parameters given), or null for all. */
export const subjectFilter = (q: { subjectType?: string; subjectId?: string }) =>
  q.subjectType !== undefined && q.subjectId !== undefined ? { type: q.subjectType, id: q.subjectId } : null;

const subscriptionItemSchema = z.object({
  environment: environmentSchema,
  processorSubscriptionItemId: z.string(),
  processorSubscriptionId: z.string(),
  processorProductId: z.string().nullable(),
  processorPriceId: z.string().nullable(),
  quantity: z.number().nullable(),
  metadata: z.record(z.string(), z.string()),
  createdAt: z.date(),
  updatedAt: z.date(),
});
export const subscriptionSchema = z.object({
  environment: environmentSchema,
  processorSubscriptionId: z.string(),
  processorCustomerId: z.string(),
  subjectType: z.string().nullable(),
  subjectId: z.string().nullable(),
  status: z.string(),
  currentPeriodStart: timestamp,
  currentPeriodEnd: timestamp,
  cancelAtPeriodEnd: z.boolean(),
  cancelAt: timestamp,
  canceledAt: timestamp,
  trialStart: timestamp,
  trialEnd: timestamp,
  latestInvoiceId: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  syncedAt: z.date(),
  createdAt: z.date(),
  updatedAt: z.date(),
  items: z.array(subscriptionItemSchema),
});

export const syncResultsSchema = z.object({
  results: z.array(
    z.object({
      environment: environmentSchema,
      connection: connectionSchema,
      subscriptions: z
        .object({ environment: environmentSchema, synced: z.number(), unmapped: z.number(), deleted: z.number() })
        .nullable(),
    }),
  ),
});

const subjectSchema = z.strictObject({ type: z.string().min(1).max(100), id: z.string().min(1).max(255) });

export const portalCreateSchema = z.strictObject({
  subject: subjectSchema,
  returnUrl: z.url().optional(),
  configuration: z.string().min(1).max(255).optional(),
});
export const portalSessionSchema = z.object({
  id: z.string(),
  environment: environmentSchema,
  status: z.enum(['initialized', 'created', 'failed']),
  subjectType: z.string(),
  subjectId: z.string(),
  processorCustomerId: z.string().nullable(),
  returnUrl: z.string().nullable(),
  configuration: z.string().nullable(),
  url: z.string().nullable(),
  lastError: z.string().nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
});

/**
 * A checkout line: `processorPriceId` (the spec's name), or `priceId`, the name the official
 * JavaScript client sends (its `/api/payments/stripe/…` path is served too); exactly one of them.
 */
const lineItemSchema = z
  .strictObject({
    processorPriceId: z.string().trim().min(1).optional(),
    priceId: z.string().trim().min(1).optional(),
    quantity: z.number().int().min(1).max(999).default(1),
  })
  .refine((l) => (l.processorPriceId === undefined) !== (l.priceId === undefined), {
    message: 'give exactly one of processorPriceId or priceId',
    path: ['processorPriceId'],
  })
  .transform(({ processorPriceId, priceId, quantity }) => ({
    processorPriceId: (processorPriceId ?? priceId)!,
    quantity,
  }));

export const checkoutCreateSchema = z
  .strictObject({
    mode: z.enum(['payment', 'subscription']),
    lineItems: z.array(lineItemSchema).min(1).max(100),
    successUrl: z.url(),
    cancelUrl: z.url(),
    subject: subjectSchema.optional(),
    customerEmail: z.email().nullable().optional(),
    metadata: metadataSchema.optional(),
    idempotencyKey: idempotencyKeySchema.optional(),
  })
  .refine((b) => b.mode !== 'subscription' || b.subject !== undefined, {
    message: 'subject is required for subscription checkout',
    path: ['subject'],
  })
  .refine((b) => !Object.keys(b.metadata ?? {}).some((k) => k.startsWith('svc_')), {
    message: 'metadata keys starting with svc_ are reserved',
    path: ['metadata'],
  });
export const checkoutSessionSchema = z.object({
  id: z.string(),
  environment: environmentSchema,
  mode: z.enum(['payment', 'subscription']),
  status: z.enum(['initialized', 'open', 'completed', 'expired', 'failed']),
  paymentStatus: z.enum(['paid', 'unpaid', 'no_payment_required']).nullable(),
  subjectType: z.string().nullable(),
  subjectId: z.string().nullable(),
  customerEmail: z.string().nullable(),
  processorCheckoutSessionId: z.string().nullable(),
  processorCustomerId: z.string().nullable(),
  processorPaymentIntentId: z.string().nullable(),
  processorSubscriptionId: z.string().nullable(),
  url: z.string().nullable(),
  lastError: z.string().nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
});

export type PortalCreate = z.output<typeof portalCreateSchema>;
export type CheckoutCreate = z.output<typeof checkoutCreateSchema>;

export const customersQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(100).default(50) });
export const customerSchema = z.object({
  environment: environmentSchema,
  processorCustomerId: z.string(),
  email: z.string().nullable(),
  name: z.string().nullable(),
  subjectType: z.string().nullable(),
  subjectId: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  syncedAt: z.date(),
  paymentsCount: z.number().int(),
  lastPaymentAt: timestamp,
  totalSpend: z.number().int(),
  totalSpendCurrency: z.string().nullable(),
  paymentMethodBrand: z.string().nullable(),
  paymentMethodLast4: z.string().nullable(),
  countryCode: z.string().nullable(),
});

export const paymentHistorySchema = z.object({
  id: z.string(),
  environment: environmentSchema,
  type: z.enum(['one_time_payment', 'subscription_invoice', 'refund', 'failed_payment']),
  status: z.enum(['succeeded', 'failed', 'pending', 'refunded', 'partially_refunded']),
  subjectType: z.string().nullable(),
  subjectId: z.string().nullable(),
  processorCustomerId: z.string().nullable(),
  customerEmailSnapshot: z.string().nullable(),
  processorCheckoutSessionId: z.string().nullable(),
  processorPaymentIntentId: z.string().nullable(),
  processorInvoiceId: z.string().nullable(),
  processorChargeId: z.string().nullable(),
  processorRefundId: z.string().nullable(),
  processorSubscriptionId: z.string().nullable(),
  processorProductId: z.string().nullable(),
  processorPriceId: z.string().nullable(),
  amount: z.number().int().nullable(),
  amountRefunded: z.number().int(),
  currency: z.string().nullable(),
  description: z.string().nullable(),
  failureMessage: z.string().nullable(),
  paymentMethodBrand: z.string().nullable(),
  paymentMethodLast4: z.string().nullable(),
  paidAt: timestamp,
  failedAt: timestamp,
  refundedAt: timestamp,
  processorCreatedAt: timestamp,
  createdAt: z.date(),
  updatedAt: z.date(),
});

/** A received processor event, as recorded (POST /api/webhooks/processor/{environment}). */
export const webhookEventSchema = z.object({
  environment: environmentSchema,
  processorEventId: z.string(),
  eventType: z.string(),
  livemode: z.boolean(),
  objectType: z.string().nullable(),
  objectId: z.string().nullable(),
  processingStatus: z.enum(['pending', 'processed', 'failed', 'ignored']),
  attemptCount: z.number(),
  lastError: z.string().nullable(),
  receivedAt: z.date(),
  processedAt: z.date().nullable(),
});

export const webhookReceiptSchema = z.object({
  received: z.literal(true),
  handled: z.boolean(),
  event: webhookEventSchema,
});

export type CustomerOut = z.output<typeof customerSchema>;
export type PaymentHistoryOut = z.output<typeof paymentHistorySchema>;
