-- Realtime: channel patterns, messages and retention as the official client's platform keeps
-- them (schema `realtime`), plus the cluster bookkeeping Plinth adds for many servers: live
-- servers (heartbeats) and presence members. Subscribing is SELECT on realtime.channels and
-- publishing is INSERT on realtime.messages, each under the caller's own role and claims; RLS is
-- off by default, so an enabled pattern opens a channel and policies narrow it.
CREATE SCHEMA IF NOT EXISTS realtime;

CREATE TABLE realtime.channels (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  pattern text NOT NULL UNIQUE,
  description text,
  webhook_urls text[],
  enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX channels_enabled_idx ON realtime.channels (enabled);
CREATE TRIGGER channels_touch_updated_at BEFORE UPDATE ON realtime.channels
  FOR EACH ROW EXECUTE FUNCTION system.touch_updated_at();

CREATE TABLE realtime.messages (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  event_name text NOT NULL,
  channel_id uuid REFERENCES realtime.channels (id) ON DELETE SET NULL,
  channel_name text NOT NULL,
  payload jsonb NOT NULL DEFAULT '{}',
  sender_type text NOT NULL DEFAULT 'system' CHECK (sender_type IN ('system', 'user')),
  sender_id uuid,
  ws_audience_count integer NOT NULL DEFAULT 0,
  wh_audience_count integer NOT NULL DEFAULT 0,
  wh_delivered_count integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX messages_channel_id_idx ON realtime.messages (channel_id);
CREATE INDEX messages_channel_name_idx ON realtime.messages (channel_name);
CREATE INDEX messages_created_at_idx ON realtime.messages (created_at DESC);
CREATE INDEX messages_event_name_idx ON realtime.messages (event_name);
CREATE INDEX messages_sender_idx ON realtime.messages (sender_type, sender_id);

-- Singleton: how long messages are kept (NULL: forever).
CREATE TABLE realtime.config (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  singleton boolean NOT NULL DEFAULT true UNIQUE CHECK (singleton),
  retention_days integer CHECK (retention_days IS NULL OR retention_days > 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TRIGGER config_touch_updated_at BEFORE UPDATE ON realtime.config
  FOR EACH ROW EXECUTE FUNCTION system.touch_updated_at();
INSERT INTO realtime.config (retention_days) VALUES (NULL);

-- Servers holding sockets, with the time of their last heartbeat (the server's clock). A server
-- whose heartbeat is older than the time-to-live is dead: its presence members are dropped.
CREATE TABLE realtime.servers (
  id text PRIMARY KEY,
  heartbeat_at timestamptz NOT NULL
);

-- One row per subscribed socket: the logical member (a user's id, or the socket id for anon and
-- API-key sockets) is the distinct presence_id of a channel's rows on live servers.
CREATE TABLE realtime.presence (
  channel_name text NOT NULL,
  socket_id text NOT NULL,
  server_id text NOT NULL,
  presence_id text NOT NULL,
  member_type text NOT NULL CHECK (member_type IN ('user', 'anonymous')),
  joined_at timestamptz NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY, -- insertion order: the member list's order
  PRIMARY KEY (channel_name, socket_id)
);
CREATE INDEX presence_member_idx ON realtime.presence (channel_name, presence_id);
CREATE INDEX presence_server_idx ON realtime.presence (server_id);

-- The channel name being checked (subscribe) or published to, for policies; NULL outside.
CREATE FUNCTION realtime.channel_name() RETURNS text
LANGUAGE sql STABLE AS $$
  SELECT nullif(current_setting('realtime.channel_name', true), '')
$$;

-- The enabled channel row a name resolves to: an exact pattern first, else a LIKE match.
CREATE FUNCTION realtime.match_channel(p_channel_name text) RETURNS uuid
LANGUAGE sql STABLE AS $$
  SELECT id FROM realtime.channels
  WHERE enabled AND (pattern = p_channel_name OR p_channel_name LIKE pattern)
  ORDER BY pattern = p_channel_name DESC, length(pattern) DESC
  LIMIT 1
$$;

-- Publishes a system message from SQL (a trigger, a migration): delivered to every server's
-- subscribers through the notification below. No enabled channel matches: a warning, NULL.
CREATE FUNCTION realtime.publish(p_channel_name text, p_event_name text, p_payload jsonb) RETURNS uuid
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, realtime AS $$
DECLARE
  v_channel uuid := realtime.match_channel(p_channel_name);
  v_id uuid;
BEGIN
  IF v_channel IS NULL THEN
    RAISE WARNING 'realtime.publish: no enabled channel matches %', p_channel_name;
    RETURN NULL;
  END IF;
  INSERT INTO realtime.messages (event_name, channel_id, channel_name, payload, sender_type)
  VALUES (p_event_name, v_channel, p_channel_name, coalesce(p_payload, '{}'::jsonb), 'system')
  RETURNING id INTO v_id;
  RETURN v_id;
END
$$;
REVOKE EXECUTE ON FUNCTION realtime.publish(text, text, jsonb) FROM PUBLIC;

-- Every committed message is announced to every server by id (NOTIFY payloads are capped at 8 KB).
CREATE FUNCTION realtime.notify_message() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('realtime_message', NEW.id::text);
  RETURN NULL;
END
$$;
CREATE TRIGGER messages_notify AFTER INSERT ON realtime.messages
  FOR EACH ROW EXECUTE FUNCTION realtime.notify_message();

GRANT USAGE ON SCHEMA realtime TO anon, authenticated, project_admin;
GRANT SELECT ON realtime.channels TO anon, authenticated;
GRANT INSERT ON realtime.messages TO anon, authenticated;
GRANT SELECT, INSERT, UPDATE, DELETE ON realtime.channels TO project_admin;
GRANT SELECT, INSERT ON realtime.messages TO project_admin;
GRANT SELECT ON realtime.config TO project_admin;
GRANT EXECUTE ON FUNCTION realtime.channel_name(), realtime.match_channel(text) TO anon, authenticated, project_admin;
GRANT EXECUTE ON FUNCTION realtime.publish(text, text, jsonb) TO project_admin;
