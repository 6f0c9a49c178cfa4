-- How each session started (password, otp or oauth): the `amr` claim of its access tokens, kept
-- through every refresh. Sessions from before this migration count as password sessions.
ALTER TABLE auth.sessions ADD COLUMN sign_in_method text NOT NULL DEFAULT 'password'
  CHECK (sign_in_method IN ('password', 'otp', 'oauth'));

CREATE FUNCTION auth.start_session(
  p_session_id uuid, p_user_id uuid, p_admin_subject text, p_token_hash bytea,
  p_now timestamptz, p_ttl interval, p_sign_in_method text
) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO auth.sessions (id, user_id, admin_subject, created_at, expires_at, sign_in_method)
  VALUES (p_session_id, p_user_id, p_admin_subject, p_now, p_now + p_ttl, p_sign_in_method);
  INSERT INTO auth.refresh_tokens (token_hash, session_id, issued_at)
  VALUES (p_token_hash, p_session_id, p_now);
$$;
