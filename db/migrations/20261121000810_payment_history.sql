-- Payments: one row per payment-like processor object (invoice, payment intent, refund) of an
-- environment, fed idempotently by webhooks; amounts in the currency's minor units.
CREATE TABLE payments.payment_history (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment text NOT NULL CHECK (environment IN ('test', 'live')),
  type text NOT NULL CHECK (type IN ('one_time_payment', 'subscription_invoice', 'refund', 'failed_payment')),
  status text NOT NULL CHECK (status IN ('succeeded', 'failed', 'pending', 'refunded', 'partially_refunded')),
  -- The invoice, payment intent or refund id this row stands for (one row per object).
  processor_object_id text NOT NULL,
  subject_type text,
  subject_id text,
  processor_customer_id text,
  customer_email_snapshot text,
  processor_checkout_session_id text,
  processor_payment_intent_id text,
  processor_invoice_id text,
  processor_charge_id text,
  processor_refund_id text,
  processor_subscription_id text,
  processor_product_id text,
  processor_price_id text,
  amount bigint,
  amount_refunded bigint NOT NULL DEFAULT 0,
  currency text,
  description text,
  failure_message text,
  payment_method_brand text,
  payment_method_last4 text,
  country_code text,
  paid_at timestamptz,
  failed_at timestamptz,
  refunded_at timestamptz,
  processor_created_at timestamptz,
  -- The processor's event time of the state held here (refunds: an older state never wins).
  state_at timestamptz NOT NULL,
  raw jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (environment, processor_object_id)
);
-- The list's order (newest first), whole and per subject.
CREATE INDEX payment_history_newest ON payments.payment_history
  (environment, (coalesce(processor_created_at, created_at)) DESC, created_at DESC, processor_object_id DESC);
CREATE INDEX payment_history_subject ON payments.payment_history
  (environment, subject_type, subject_id, (coalesce(processor_created_at, created_at)) DESC);
CREATE INDEX payment_history_customer ON payments.payment_history (environment, processor_customer_id);
CREATE INDEX payment_history_intent ON payments.payment_history (environment, processor_payment_intent_id);
CREATE INDEX payment_history_charge ON payments.payment_history (environment, processor_charge_id);
