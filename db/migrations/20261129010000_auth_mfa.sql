-- Multi-factor authentication: a session's assurance level (aal1 after a first factor, aal2
-- after a second) and the methods that got it there (amr), TOTP factors of users and of the
-- project admin, their challenges, users' single-use recovery codes, and the project setting
-- that makes the admin's sign-in need a TOTP code.

ALTER TABLE auth.sessions
  ADD COLUMN aal text NOT NULL DEFAULT 'aal1' CHECK (aal IN ('aal1', 'aal2')),
  ADD COLUMN amr jsonb NOT NULL DEFAULT '[]';

-- Starts a session like auth.start_session, remembering how its owner signed in (amr).
CREATE FUNCTION auth.start_session(
  p_session_id uuid, p_user_id uuid, p_admin_subject text, p_token_hash bytea,
  p_now timestamptz, p_ttl interval, p_amr jsonb
) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO auth.sessions (id, user_id, admin_subject, created_at, expires_at, amr)
  VALUES (p_session_id, p_user_id, p_admin_subject, p_now, p_now + p_ttl, p_amr);
  INSERT INTO auth.refresh_tokens (token_hash, session_id, issued_at)
  VALUES (p_token_hash, p_session_id, p_now);
$$;

-- A TOTP factor of a user or of the project admin (admin_subject). The secret is sealed with the
-- keyring (never readable back through the API). last_used_step refuses a code twice within its
-- window; failed_attempts and locked_until limit guessing per factor.
CREATE TABLE auth.mfa_factors (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid REFERENCES auth.users (id) ON DELETE CASCADE,
  admin_subject text,
  friendly_name text NOT NULL CHECK (length(friendly_name) BETWEEN 1 AND 100),
  factor_type text NOT NULL DEFAULT 'totp' CHECK (factor_type IN ('totp')),
  status text NOT NULL DEFAULT 'unverified' CHECK (status IN ('unverified', 'verified')),
  secret_sealed text NOT NULL,
  last_used_step bigint,
  failed_attempts integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((user_id IS NULL) <> (admin_subject IS NULL))
);
CREATE UNIQUE INDEX mfa_factors_user_name_idx ON auth.mfa_factors (user_id, friendly_name) WHERE user_id IS NOT NULL;
CREATE UNIQUE INDEX mfa_factors_admin_name_idx ON auth.mfa_factors (admin_subject, friendly_name)
  WHERE admin_subject IS NOT NULL;

-- A challenge of a factor, issued to one session; answered at most once, before it expires.
CREATE TABLE auth.mfa_challenges (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  factor_id uuid NOT NULL REFERENCES auth.mfa_factors (id) ON DELETE CASCADE,
  session_id uuid NOT NULL REFERENCES auth.sessions (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  verified_at timestamptz
);
CREATE INDEX mfa_challenges_factor_id_idx ON auth.mfa_challenges (factor_id);
CREATE INDEX mfa_challenges_session_id_idx ON auth.mfa_challenges (session_id);

-- A user's single-use recovery codes (SHA-256 of each; the codes are shown once).
CREATE TABLE auth.mfa_recovery_codes (
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  code_hash bytea NOT NULL,
  created_at timestamptz NOT NULL,
  used_at timestamptz,
  PRIMARY KEY (user_id, code_hash)
);

ALTER TABLE auth.config ADD COLUMN require_admin_mfa boolean NOT NULL DEFAULT false;
