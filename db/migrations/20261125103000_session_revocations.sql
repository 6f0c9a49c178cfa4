-- Sessions that ended (revoked, or deleted with their user) while their access tokens may still
-- be alive: a trigger records each one and announces it on `plinth_session_revoked`, so every
-- server refuses the session's access tokens at once; servers load recent rows when they start.

CREATE TABLE auth.session_revocations (
  session_id uuid PRIMARY KEY,
  revoked_at timestamptz NOT NULL
);
CREATE INDEX session_revocations_revoked_at_idx ON auth.session_revocations (revoked_at);

CREATE FUNCTION auth.announce_session_revocation() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  v_id uuid := CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END;
  v_at timestamptz := CASE WHEN TG_OP = 'DELETE' THEN now() ELSE NEW.revoked_at END;
BEGIN
  INSERT INTO auth.session_revocations (session_id, revoked_at) VALUES (v_id, v_at)
  ON CONFLICT (session_id) DO NOTHING;
  PERFORM pg_notify('plinth_session_revoked', v_id::text);
  RETURN NULL;
END $$;

CREATE TRIGGER sessions_announce_revocation
AFTER UPDATE OF revoked_at ON auth.sessions
FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
EXECUTE FUNCTION auth.announce_session_revocation();

-- A live session deleted with its user: its access tokens must stop too.
CREATE TRIGGER sessions_announce_deletion
AFTER DELETE ON auth.sessions
FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND OLD.expires_at > now())
EXECUTE FUNCTION auth.announce_session_revocation();
