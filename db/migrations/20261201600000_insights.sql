-- Insights: the console's charts read rollups, never the raw logs, so a week's chart costs the
-- same with ten thousand or ten million log rows. One server at a time (an advisory lock) folds
-- closed minutes of logs.entries and realtime.messages into logs.insight_rollup, in buckets of
-- each chart range's width (60 s for an hour, 600 s for a day, 3600 s for a week); the minutes
-- not yet folded are read from the raw rows (a few minutes at most, on the ts index).

-- Requests and function invocations per bucket, by status class (1–5) and latency bucket
-- (floor(ln(1 + ms) * 8): ~13 % wide, so p50/p95 come from merged counts).
-- Realtime messages are rows of source 'realtime', the channel in slug (status class 0, bucket 0).
CREATE TABLE logs.insight_rollup (
  width integer NOT NULL,
  bucket timestamptz NOT NULL,
  source text NOT NULL,
  slug text NOT NULL DEFAULT '',
  status_class smallint NOT NULL,
  latency_bucket smallint NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (width, bucket, source, slug, status_class, latency_bucket)
);

-- Values sampled once a minute: database and storage bytes (one value for the project, server ''),
-- realtime connections (one row per server, summed when read).
CREATE TABLE logs.gauge_samples (
  minute timestamptz NOT NULL,
  name text NOT NULL,
  server text NOT NULL DEFAULT '',
  value double precision NOT NULL,
  PRIMARY KEY (name, minute, server)
);

-- Where folding has reached: minutes before rolled_until are in logs.insight_rollup.
CREATE TABLE logs.rollup_state (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  rolled_until timestamptz NOT NULL
);

-- Sign-ins per minute (sessions started for users; admin sessions are not counted). Sessions end
-- and are deleted, so the count is kept as it happens, by the function every sign-in calls.
CREATE TABLE auth.sign_in_minutes (
  minute timestamptz PRIMARY KEY,
  count integer NOT NULL
);

CREATE OR REPLACE FUNCTION auth.start_session(
  p_session_id uuid, p_user_id uuid, p_admin_subject text, p_token_hash bytea,
  p_now timestamptz, p_ttl interval, p_amr jsonb, p_aal text DEFAULT 'aal1'
) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO auth.sessions (id, user_id, admin_subject, created_at, expires_at, amr, aal)
  VALUES (p_session_id, p_user_id, p_admin_subject, p_now, p_now + p_ttl, p_amr, p_aal);
  INSERT INTO auth.refresh_tokens (token_hash, session_id, issued_at)
  VALUES (p_token_hash, p_session_id, p_now);
  INSERT INTO auth.sign_in_minutes AS m (minute, count)
  SELECT date_trunc('minute', p_now), 1 WHERE p_user_id IS NOT NULL
  ON CONFLICT (minute) DO UPDATE SET count = m.count + 1;
$$;
