-- Users, their sign-in providers, the authentication configuration, and revocable sessions
-- whose refresh tokens rotate on every use.

CREATE TABLE auth.users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL UNIQUE CHECK (email = lower(email)),
  password_hash text,
  email_verified boolean NOT NULL DEFAULT false,
  profile jsonb NOT NULL DEFAULT '{}',
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX users_created_at_idx ON auth.users (created_at DESC, id DESC);

CREATE TABLE auth.user_providers (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  provider text NOT NULL,
  provider_account_id text NOT NULL,
  provider_data jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (provider, provider_account_id)
);
CREATE INDEX user_providers_user_id_idx ON auth.user_providers (user_id);

-- A user as the API shows it: `providers` lists `email` for password users plus linked providers.
CREATE VIEW auth.user_records AS
SELECT
  u.id, u.email, u.email_verified, u.profile, u.metadata, u.created_at, u.updated_at,
  ARRAY(
    SELECT DISTINCT p.provider FROM (
      SELECT 'email' AS provider WHERE u.password_hash IS NOT NULL
      UNION ALL
      SELECT up.provider FROM auth.user_providers up WHERE up.user_id = u.id
    ) p ORDER BY 1
  ) AS providers
FROM auth.users u;

CREATE TABLE auth.config (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  singleton boolean NOT NULL DEFAULT true UNIQUE CHECK (singleton),
  require_email_verification boolean NOT NULL DEFAULT false,
  password_min_length integer NOT NULL DEFAULT 6 CHECK (password_min_length BETWEEN 4 AND 128),
  require_number boolean NOT NULL DEFAULT false,
  require_lowercase boolean NOT NULL DEFAULT false,
  require_uppercase boolean NOT NULL DEFAULT false,
  require_special_char boolean NOT NULL DEFAULT false,
  verify_email_method text NOT NULL DEFAULT 'code' CHECK (verify_email_method IN ('code', 'link')),
  reset_password_method text NOT NULL DEFAULT 'code' CHECK (reset_password_method IN ('code', 'link')),
  allowed_redirect_urls text[] NOT NULL DEFAULT '{}',
  disable_signup boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO auth.config DEFAULT VALUES;

-- A signed-in session of a user or of the project admin (admin_subject, e.g. 'local:<email>').
CREATE TABLE auth.sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid REFERENCES auth.users (id) ON DELETE CASCADE,
  admin_subject text,
  created_at timestamptz NOT NULL,
  refreshed_at timestamptz,
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz,
  revoked_reason text,
  CHECK ((user_id IS NULL) <> (admin_subject IS NULL))
);
CREATE INDEX sessions_user_id_idx ON auth.sessions (user_id);

-- Every refresh token a session was ever given (SHA-256 of the opaque value). A token is used
-- once; presenting a used token again, outside a short grace window, revokes the session.
CREATE TABLE auth.refresh_tokens (
  token_hash bytea PRIMARY KEY,
  session_id uuid NOT NULL REFERENCES auth.sessions (id) ON DELETE CASCADE,
  issued_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX refresh_tokens_session_id_idx ON auth.refresh_tokens (session_id);

-- Starts a session and its first refresh token in one statement.
CREATE FUNCTION auth.start_session(
  p_session_id uuid, p_user_id uuid, p_admin_subject text, p_token_hash bytea,
  p_now timestamptz, p_ttl interval
) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO auth.sessions (id, user_id, admin_subject, created_at, expires_at)
  VALUES (p_session_id, p_user_id, p_admin_subject, p_now, p_now + p_ttl);
  INSERT INTO auth.refresh_tokens (token_hash, session_id, issued_at)
  VALUES (p_token_hash, p_session_id, p_now);
$$;

-- Exchanges a refresh token for its successor (whose hash the caller computes, deterministically,
-- from the token). Outcomes: 'rotated'; 'invalid' (unknown, expired or revoked); 'reused' (an
-- already used token outside the grace window: the whole session is revoked). A token of the
-- other kind of session (user vs admin) is 'invalid' and left untouched. A concurrent refresh
-- of the same token within the grace window is 'rotated' to the same successor.
CREATE FUNCTION auth.rotate_refresh_token(
  p_token_hash bytea, p_successor_hash bytea, p_now timestamptz, p_grace interval, p_ttl interval,
  p_admin boolean
) RETURNS TABLE (outcome text, session_id uuid, user_id uuid, admin_subject text)
LANGUAGE plpgsql AS $$
DECLARE
  v_session auth.sessions;
  v_used_at timestamptz;
BEGIN
  SELECT s.* INTO v_session
  FROM auth.sessions s
  WHERE s.id = (SELECT t.session_id FROM auth.refresh_tokens t WHERE t.token_hash = p_token_hash)
  FOR UPDATE;
  IF NOT FOUND OR v_session.revoked_at IS NOT NULL OR v_session.expires_at <= p_now
     OR (v_session.admin_subject IS NOT NULL) <> p_admin THEN
    RETURN QUERY SELECT 'invalid'::text, NULL::uuid, NULL::uuid, NULL::text;
    RETURN;
  END IF;

  -- Read after the lock, so a refresh that waited sees the one that went first.
  SELECT t.used_at INTO v_used_at FROM auth.refresh_tokens t WHERE t.token_hash = p_token_hash;

  IF v_used_at IS NULL THEN
    UPDATE auth.refresh_tokens SET used_at = p_now WHERE token_hash = p_token_hash;
    INSERT INTO auth.refresh_tokens (token_hash, session_id, issued_at)
    VALUES (p_successor_hash, v_session.id, p_now);
    UPDATE auth.sessions SET refreshed_at = p_now, expires_at = p_now + p_ttl WHERE id = v_session.id;
  ELSIF v_used_at <= p_now - p_grace OR NOT EXISTS (
    SELECT 1 FROM auth.refresh_tokens t WHERE t.token_hash = p_successor_hash AND t.used_at IS NULL
  ) THEN
    UPDATE auth.sessions SET revoked_at = p_now, revoked_reason = 'refresh_token_reuse'
    WHERE id = v_session.id;
    RETURN QUERY SELECT 'reused'::text, v_session.id, v_session.user_id, v_session.admin_subject;
    RETURN;
  END IF;

  RETURN QUERY SELECT 'rotated'::text, v_session.id, v_session.user_id, v_session.admin_subject;
END
$$;
