-- Payments: local mirrors of the processor's catalog, customers and subscriptions per environment
-- (updated only after the processor answered), session records, and received webhook events.
CREATE SCHEMA IF NOT EXISTS payments;

CREATE TABLE payments.connections (
  environment text PRIMARY KEY CHECK (environment IN ('test', 'live')),
  processor_account_id text,
  processor_account_email text,
  account_livemode boolean,
  -- The webhook endpoint Plinth created at the processor (its signing secret is a reserved secret).
  webhook_endpoint_id text,
  webhook_endpoint_url text,
  webhook_configured_at timestamptz,
  last_synced_at timestamptz,
  last_sync_status text CHECK (last_sync_status IN ('succeeded', 'failed')),
  last_sync_error text,
  last_sync_counts jsonb,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE payments.products (
  environment text NOT NULL CHECK (environment IN ('test', 'live')),
  processor_product_id text NOT NULL,
  name text NOT NULL,
  description text,
  active boolean NOT NULL,
  default_price_id text,
  metadata jsonb NOT NULL DEFAULT '{}',
  raw jsonb NOT NULL,
  synced_at timestamptz NOT NULL,
  PRIMARY KEY (environment, processor_product_id)
);

CREATE TABLE payments.prices (
  environment text NOT NULL CHECK (environment IN ('test', 'live')),
  processor_price_id text NOT NULL,
  processor_product_id text,
  active boolean NOT NULL,
  currency text NOT NULL,
  unit_amount bigint,
  unit_amount_decimal text,
  type text NOT NULL,
  lookup_key text,
  billing_scheme text,
  tax_behavior text,
  recurring_interval text,
  recurring_interval_count integer,
  metadata jsonb NOT NULL DEFAULT '{}',
  raw jsonb NOT NULL,
  synced_at timestamptz NOT NULL,
  PRIMARY KEY (environment, processor_price_id)
);

CREATE TABLE payments.customers (
  environment text NOT NULL CHECK (environment IN ('test', 'live')),
  processor_customer_id text NOT NULL,
  email text,
  name text,
  deleted boolean NOT NULL DEFAULT false,
  metadata jsonb NOT NULL DEFAULT '{}',
  raw jsonb NOT NULL,
  synced_at timestamptz NOT NULL,
  PRIMARY KEY (environment, processor_customer_id)
);

-- Which processor customer pays for a billing subject (from svc_subject_* metadata).
CREATE TABLE payments.customer_mappings (
  environment text NOT NULL CHECK (environment IN ('test', 'live')),
  subject_type text NOT NULL,
  subject_id text NOT NULL,
  processor_customer_id text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (environment, subject_type, subject_id)
);

CREATE TABLE payments.subscriptions (
  environment text NOT NULL CHECK (environment IN ('test', 'live')),
  processor_subscription_id text NOT NULL,
  processor_customer_id text NOT NULL,
  subject_type text,
  subject_id text,
  status text NOT NULL,
  current_period_start timestamptz,
  current_period_end timestamptz,
  cancel_at_period_end boolean NOT NULL DEFAULT false,
  cancel_at timestamptz,
  canceled_at timestamptz,
  trial_start timestamptz,
  trial_end timestamptz,
  latest_invoice_id text,
  metadata jsonb NOT NULL DEFAULT '{}',
  raw jsonb NOT NULL,
  -- The processor's event time of the state held here: older events never overwrite it.
  state_at timestamptz,
  synced_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (environment, processor_subscription_id)
);
CREATE INDEX subscriptions_subject ON payments.subscriptions (environment, subject_type, subject_id);

CREATE TABLE payments.subscription_items (
  environment text NOT NULL CHECK (environment IN ('test', 'live')),
  processor_subscription_item_id text NOT NULL,
  processor_subscription_id text NOT NULL,
  processor_product_id text,
  processor_price_id text,
  quantity integer,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (environment, processor_subscription_item_id),
  FOREIGN KEY (environment, processor_subscription_id)
    REFERENCES payments.subscriptions (environment, processor_subscription_id) ON DELETE CASCADE
);

-- Session records are inserted under the caller's role, so row-level security decides whose
-- billing subject a caller may open a session for: by default a user acts only for the subject
-- ('user', their own id); the admin for anyone. Developers add policies for other subjects.
CREATE TABLE payments.customer_portal_sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment text NOT NULL CHECK (environment IN ('test', 'live')),
  status text NOT NULL CHECK (status IN ('initialized', 'created', 'failed')),
  subject_type text NOT NULL,
  subject_id text NOT NULL,
  processor_customer_id text,
  return_url text,
  configuration_id text,
  url text,
  last_error text,
  created_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE payments.checkout_sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  environment text NOT NULL CHECK (environment IN ('test', 'live')),
  mode text NOT NULL CHECK (mode IN ('payment', 'subscription')),
  status text NOT NULL CHECK (status IN ('initialized', 'open', 'completed', 'expired', 'failed')),
  payment_status text CHECK (payment_status IN ('paid', 'unpaid', 'no_payment_required')),
  subject_type text,
  subject_id text,
  customer_email text,
  processor_checkout_session_id text,
  processor_customer_id text,
  processor_payment_intent_id text,
  processor_subscription_id text,
  url text,
  last_error text,
  idempotency_key text,
  request_fingerprint text NOT NULL,
  created_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX checkout_sessions_idempotency
  ON payments.checkout_sessions (environment, idempotency_key) WHERE idempotency_key IS NOT NULL;

CREATE TABLE payments.webhook_events (
  environment text NOT NULL CHECK (environment IN ('test', 'live')),
  processor_event_id text NOT NULL,
  event_type text NOT NULL,
  livemode boolean NOT NULL,
  object_type text,
  object_id text,
  processing_status text NOT NULL CHECK (processing_status IN ('pending', 'processed', 'failed', 'ignored')),
  attempt_count integer NOT NULL DEFAULT 1,
  last_error text,
  received_at timestamptz NOT NULL,
  processed_at timestamptz,
  PRIMARY KEY (environment, processor_event_id)
);

GRANT USAGE ON SCHEMA payments TO anon, authenticated, project_admin;
GRANT SELECT, INSERT ON payments.customer_portal_sessions, payments.checkout_sessions
  TO anon, authenticated, project_admin;
ALTER TABLE payments.customer_portal_sessions ENABLE ROW LEVEL SECURITY;
ALTER TABLE payments.checkout_sessions ENABLE ROW LEVEL SECURITY;

CREATE POLICY admin_all ON payments.customer_portal_sessions TO project_admin USING (true) WITH CHECK (true);
CREATE POLICY own_subject ON payments.customer_portal_sessions TO authenticated
  USING (subject_type = 'user' AND subject_id = auth.uid()::text)
  WITH CHECK (subject_type = 'user' AND subject_id = auth.uid()::text);
CREATE POLICY admin_all ON payments.checkout_sessions TO project_admin USING (true) WITH CHECK (true);
CREATE POLICY own_subject ON payments.checkout_sessions TO authenticated
  USING (subject_type = 'user' AND subject_id = auth.uid()::text)
  WITH CHECK (subject_type = 'user' AND subject_id = auth.uid()::text);
-- Guest checkout (no subject) is open to anyone holding a client credential.
CREATE POLICY guest_checkout ON payments.checkout_sessions TO anon, authenticated
  USING (subject_type IS NULL) WITH CHECK (subject_type IS NULL);
