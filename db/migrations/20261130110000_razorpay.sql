-- Razorpay, the second payment processor: its connection per environment, the orders and
-- subscriptions the app's users start (recorded under the caller's role, so row-level security
-- decides whose billing subject a caller may pay for), mirrors of its catalog (items, plans),
-- customers and transactions, and its webhook events beside the first processor's (one table,
-- deduplicated per provider, environment and event id).

ALTER TABLE payments.webhook_events
  ADD COLUMN provider text NOT NULL DEFAULT 'stripe' CHECK (provider IN ('stripe', 'razorpay'));
ALTER TABLE payments.webhook_events DROP CONSTRAINT webhook_events_pkey;
ALTER TABLE payments.webhook_events ADD PRIMARY KEY (provider, environment, processor_event_id);

CREATE TABLE payments.razorpay_connections (
  environment text PRIMARY KEY CHECK (environment IN ('test', 'live')),
  key_id text NOT NULL,
  -- Razorpay's account id, learnt from the first signed webhook (its payloads carry account_id).
  account_id text,
  -- The previous webhook secret stays valid until then (a rotation's grace period).
  previous_webhook_secret_until timestamptz,
  webhook_rotated_at timestamptz,
  last_synced_at timestamptz,
  last_sync_status text CHECK (last_sync_status IN ('succeeded', 'failed')),
  last_sync_error text,
  last_sync_counts jsonb,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE payments.razorpay_orders (
  id uuid PRIMARY KEY,
  environment text NOT NULL CHECK (environment IN ('test', 'live')),
  status text NOT NULL CHECK (status IN ('initialized', 'created', 'attempted', 'paid', 'failed')),
  subject_type text,
  subject_id text,
  customer_name text,
  customer_email text,
  customer_contact text,
  order_id text,
  receipt text,
  amount bigint NOT NULL,
  amount_paid bigint NOT NULL DEFAULT 0,
  amount_due bigint NOT NULL,
  currency text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  verified_payment_id text,
  verified_at timestamptz,
  notes jsonb NOT NULL DEFAULT '{}',
  last_error text,
  raw jsonb,
  created_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (environment, order_id)
);
CREATE INDEX razorpay_orders_subject ON payments.razorpay_orders (environment, subject_type, subject_id);

CREATE TABLE payments.razorpay_subscriptions (
  environment text NOT NULL CHECK (environment IN ('test', 'live')),
  subscription_id text NOT NULL,
  plan_id text NOT NULL,
  customer_id text,
  subject_type text,
  subject_id text,
  status text NOT NULL,
  current_start timestamptz,
  current_end timestamptz,
  ended_at timestamptz,
  charge_at timestamptz,
  start_at timestamptz,
  end_at timestamptz,
  quantity integer,
  total_count integer,
  auth_attempts integer,
  paid_count integer,
  remaining_count integer,
  short_url text,
  has_scheduled_changes boolean NOT NULL DEFAULT false,
  change_scheduled_at timestamptz,
  offer_id text,
  authorization_payment_id text,
  authorization_verified_at timestamptz,
  notes jsonb NOT NULL DEFAULT '{}',
  provider_created_at timestamptz,
  raw jsonb,
  created_by text,
  synced_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (environment, subscription_id)
);
CREATE INDEX razorpay_subscriptions_subject ON payments.razorpay_subscriptions (environment, subject_type, subject_id);

CREATE TABLE payments.razorpay_items (
  environment text NOT NULL CHECK (environment IN ('test', 'live')),
  item_id text NOT NULL,
  name text NOT NULL,
  description text,
  active boolean NOT NULL,
  amount bigint,
  unit_amount bigint,
  currency text NOT NULL,
  type text,
  provider_created_at timestamptz,
  raw jsonb NOT NULL,
  synced_at timestamptz NOT NULL,
  PRIMARY KEY (environment, item_id)
);

CREATE TABLE payments.razorpay_plans (
  environment text NOT NULL CHECK (environment IN ('test', 'live')),
  plan_id text NOT NULL,
  item_id text NOT NULL,
  period text NOT NULL,
  interval integer NOT NULL,
  amount bigint,
  unit_amount bigint,
  currency text NOT NULL,
  active boolean NOT NULL,
  notes jsonb NOT NULL DEFAULT '{}',
  provider_created_at timestamptz,
  raw jsonb NOT NULL,
  synced_at timestamptz NOT NULL,
  PRIMARY KEY (environment, plan_id)
);

-- Razorpay customers, with the billing subject they pay for (from svc_subject_* notes, or the
-- subscription that brought them).
CREATE TABLE payments.razorpay_customers (
  environment text NOT NULL CHECK (environment IN ('test', 'live')),
  customer_id text NOT NULL,
  name text,
  email text,
  contact text,
  subject_type text,
  subject_id text,
  notes jsonb NOT NULL DEFAULT '{}',
  raw jsonb,
  synced_at timestamptz NOT NULL,
  PRIMARY KEY (environment, customer_id)
);
CREATE INDEX razorpay_customers_subject ON payments.razorpay_customers (environment, subject_type, subject_id);

-- One row per payment, refund or invoice, fed by webhooks and sync; amounts in minor units.
CREATE TABLE payments.razorpay_transactions (
  environment text NOT NULL CHECK (environment IN ('test', 'live')),
  object_id text NOT NULL,
  type text NOT NULL CHECK (type IN ('payment', 'refund', 'invoice')),
  status text NOT NULL,
  order_id text,
  payment_id text,
  subscription_id text,
  invoice_id text,
  customer_id text,
  subject_type text,
  subject_id text,
  amount bigint,
  amount_refunded bigint NOT NULL DEFAULT 0,
  currency text,
  method text,
  email text,
  contact text,
  error_description text,
  provider_created_at timestamptz,
  raw jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (environment, object_id)
);
CREATE INDEX razorpay_transactions_newest ON payments.razorpay_transactions
  (environment, (coalesce(provider_created_at, created_at)) DESC);
CREATE INDEX razorpay_transactions_subject ON payments.razorpay_transactions (environment, subject_type, subject_id);

-- Deny by default, as for the first processor's sessions: a user pays for the subject
-- ('user', their own id), guests (no subject) may create orders, the admin acts for anyone.
-- Developers add policies for other subjects (a team, an organisation).
GRANT SELECT, INSERT ON payments.razorpay_orders TO anon, authenticated, project_admin;
GRANT SELECT, INSERT ON payments.razorpay_subscriptions TO authenticated, project_admin;
-- The manage probe (a no-op update of updated_at) is how a caller shows it may act on a row.
GRANT UPDATE (updated_at) ON payments.razorpay_subscriptions TO authenticated;
GRANT UPDATE ON payments.razorpay_subscriptions TO project_admin;
ALTER TABLE payments.razorpay_orders ENABLE ROW LEVEL SECURITY;
ALTER TABLE payments.razorpay_subscriptions ENABLE ROW LEVEL SECURITY;

CREATE POLICY admin_all ON payments.razorpay_orders TO project_admin USING (true) WITH CHECK (true);
CREATE POLICY own_subject ON payments.razorpay_orders TO authenticated
  USING (subject_type = 'user' AND subject_id = auth.uid()::text)
  WITH CHECK (subject_type = 'user' AND subject_id = auth.uid()::text);
-- Guests may create orders without a subject, never read anyone's (the insert returns nothing).
CREATE POLICY guest_order ON payments.razorpay_orders FOR INSERT TO anon, authenticated
  WITH CHECK (subject_type IS NULL);

CREATE POLICY admin_all ON payments.razorpay_subscriptions TO project_admin USING (true) WITH CHECK (true);
CREATE POLICY own_subject ON payments.razorpay_subscriptions TO authenticated
  USING (subject_type = 'user' AND subject_id = auth.uid()::text)
  WITH CHECK (subject_type = 'user' AND subject_id = auth.uid()::text);
