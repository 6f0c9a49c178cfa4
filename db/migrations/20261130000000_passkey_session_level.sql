-- A session can start at aal2: signing in with a passkey that verified its user (PIN or
-- biometric) is two factors in one step. The level defaults to aal1, so a server of the previous
-- release, calling with seven arguments, keeps working during a rolling upgrade.
DROP FUNCTION auth.start_session(uuid, uuid, text, bytea, timestamptz, interval, jsonb);

CREATE FUNCTION auth.start_session(
  p_session_id uuid, p_user_id uuid, p_admin_subject text, p_token_hash bytea,
  p_now timestamptz, p_ttl interval, p_amr jsonb, p_aal text DEFAULT 'aal1'
) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO auth.sessions (id, user_id, admin_subject, created_at, expires_at, amr, aal)
  VALUES (p_session_id, p_user_id, p_admin_subject, p_now, p_now + p_ttl, p_amr, p_aal);
  INSERT INTO auth.refresh_tokens (token_hash, session_id, issued_at)
  VALUES (p_token_hash, p_session_id, p_now);
$$;
