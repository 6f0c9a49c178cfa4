-- Email-based flows: one-time codes and link tokens (stored only as hashes), request counters
-- for rate limits, SMTP settings and editable templates. All of it in PostgreSQL, so any number
-- of servers behave as one.

-- One live code or link token per (email, purpose); sending a new one replaces the old one.
CREATE TABLE auth.email_otps (
  email text NOT NULL,
  purpose text NOT NULL CHECK (purpose IN ('SIGN_IN', 'VERIFY_EMAIL', 'RESET_PASSWORD', 'RESET_TOKEN')),
  kind text NOT NULL CHECK (kind IN ('code', 'link')),
  secret_hash bytea NOT NULL,
  redirect_to text,
  attempts integer NOT NULL DEFAULT 0,
  expires_at timestamptz NOT NULL,
  consumed_at timestamptz,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (email, purpose)
);
CREATE UNIQUE INDEX email_otps_secret_hash_idx ON auth.email_otps (secret_hash);

-- Checks a code or token and consumes it. p_email NULL looks the secret up by its hash alone
-- (link tokens). Outcomes: 'ok' (consumed now); 'invalid' (wrong, unknown, expired or used). A
-- wrong code counts an attempt and the code dies at p_max_attempts. The row lock makes two
-- concurrent checks of one code take turns: exactly one can win.
CREATE FUNCTION auth.consume_email_secret(
  p_email text, p_purpose text, p_secret_hash bytea, p_now timestamptz, p_max_attempts integer
) RETURNS TABLE (outcome text, email text, redirect_to text)
LANGUAGE plpgsql AS $$
DECLARE
  v_row auth.email_otps;
BEGIN
  IF p_email IS NULL THEN
    SELECT o.* INTO v_row FROM auth.email_otps o
    WHERE o.secret_hash = p_secret_hash AND o.purpose = p_purpose FOR UPDATE;
  ELSE
    SELECT o.* INTO v_row FROM auth.email_otps o
    WHERE o.email = p_email AND o.purpose = p_purpose FOR UPDATE;
  END IF;
  IF NOT FOUND OR v_row.consumed_at IS NOT NULL OR v_row.expires_at <= p_now THEN
    RETURN QUERY SELECT 'invalid'::text, v_row.email, v_row.redirect_to;
    RETURN;
  END IF;
  IF v_row.secret_hash = p_secret_hash THEN
    UPDATE auth.email_otps o SET consumed_at = p_now
    WHERE o.email = v_row.email AND o.purpose = p_purpose;
    RETURN QUERY SELECT 'ok'::text, v_row.email, v_row.redirect_to;
    RETURN;
  END IF;
  UPDATE auth.email_otps o
  SET attempts = o.attempts + 1,
      consumed_at = CASE WHEN o.attempts + 1 >= p_max_attempts THEN p_now END
  WHERE o.email = v_row.email AND o.purpose = p_purpose;
  RETURN QUERY SELECT 'invalid'::text, v_row.email, v_row.redirect_to;
END
$$;

-- Fixed-window request counters, keyed by what is limited (e.g. 'send:ip:1.2.3.4').
CREATE TABLE system.rate_limits (
  key text PRIMARY KEY,
  window_started_at timestamptz NOT NULL,
  hits integer NOT NULL
);

CREATE SCHEMA IF NOT EXISTS email;

-- SMTP settings set through the admin API; they win over the environment when enabled.
CREATE TABLE email.smtp_config (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  singleton boolean NOT NULL DEFAULT true UNIQUE CHECK (singleton),
  enabled boolean NOT NULL DEFAULT false,
  host text NOT NULL DEFAULT '',
  port integer NOT NULL DEFAULT 587 CHECK (port BETWEEN 1 AND 65535),
  secure boolean NOT NULL DEFAULT false,
  username text NOT NULL DEFAULT '',
  password_ciphertext text,
  sender_email text NOT NULL DEFAULT '',
  sender_name text NOT NULL DEFAULT '',
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE email.templates (
  type text PRIMARY KEY CHECK (type IN (
    'email-verification-code', 'email-verification-link', 'request-otp',
    'reset-password-code', 'reset-password-link')),
  subject text NOT NULL,
  body_html text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
