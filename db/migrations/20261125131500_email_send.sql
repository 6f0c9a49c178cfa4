-- Custom emails sent through the API (POST /api/email/send-raw): the admin's limits and a record
-- of every send. The per-sender hourly count is a rate limit like the others (system.rate_limits,
-- its override in system.rate_limit_settings under 'email-send-raw:sender').

-- The admin's limits for one message; without a row the defaults in the code apply.
CREATE TABLE email.send_settings (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  max_recipients integer NOT NULL CHECK (max_recipients > 0),
  max_body_bytes integer NOT NULL CHECK (max_body_bytes > 0),
  updated_at timestamptz NOT NULL
);

-- One row per message handed to SMTP: who sent it, when, to how many, and what SMTP said.
-- Addresses and content are not kept.
CREATE TABLE email.send_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  sent_at timestamptz NOT NULL,
  sender_kind text NOT NULL CHECK (sender_kind IN ('user', 'admin', 'api-key')),
  -- The user's or admin's id; 'api-key' for the API key.
  sender_id text NOT NULL,
  recipient_count integer NOT NULL CHECK (recipient_count > 0),
  status text NOT NULL CHECK (status IN ('accepted', 'refused')),
  -- Recipients the SMTP server took (0 when refused).
  accepted_count integer NOT NULL CHECK (accepted_count >= 0),
  error text,
  CHECK ((status = 'refused') = (error IS NOT NULL))
);
CREATE INDEX send_log_sent_at_idx ON email.send_log (sent_at DESC, id DESC);
CREATE INDEX send_log_sender_idx ON email.send_log (sender_id, sent_at DESC);
