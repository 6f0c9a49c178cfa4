-- Supabase Realtime on Plinth's realtime schema (the Phoenix transport at /realtime/v1/websocket).
--
-- realtime.messages is Plinth's message table; Supabase's "Realtime Authorization" policies are
-- written on a table of that name, so it gains Supabase's columns: `topic` (the channel's name as
-- the client gave it, without "realtime:"), `extension` ('broadcast' or 'presence'), `private`
-- and `event` (Plinth's event_name under Supabase's name). Plinth's own rows leave topic and
-- extension NULL. realtime.topic() reads the topic being judged, as on Supabase.
--
-- A private channel's join is judged by the SELECT policies (a probe row, rolled back) and each of
-- its sends by the INSERT policies, under the caller's role and claims. Row-level security on
-- realtime.messages stays off by default (Plinth's semantics: policies narrow once it is enabled);
-- while it is off, private channels are refused.
--
-- Presence members may carry a meta (Supabase's tracked payload), and the `supabase_realtime`
-- publication exists so `alter publication supabase_realtime add table …` opts a table in.
ALTER TABLE realtime.messages
  ADD COLUMN topic text,
  ADD COLUMN extension text CHECK (extension IN ('broadcast', 'presence')),
  ADD COLUMN private boolean NOT NULL DEFAULT false,
  ADD COLUMN event text GENERATED ALWAYS AS (event_name) STORED;

ALTER TABLE realtime.presence ADD COLUMN meta jsonb;

CREATE FUNCTION realtime.topic() RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT nullif(current_setting('realtime.topic', true), '')
$$;
GRANT EXECUTE ON FUNCTION realtime.topic() TO anon, authenticated, project_admin;
-- The join probe selects its own row back by id under the caller's role (policies judge it).
GRANT SELECT (id) ON realtime.messages TO anon, authenticated;

DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_publication WHERE pubname = 'supabase_realtime') THEN
    CREATE PUBLICATION supabase_realtime;
  END IF;
END
$$;
