-- Realtime through a broker (REALTIME_BUS_URL): a message inserted by a server in "collect" mode
-- is not announced by NOTIFY (whose commit-time queue lock caps notifying commits cluster-wide);
-- the trigger appends the same JSON to a transaction-local setting instead, which the server
-- reads before COMMIT and publishes to the broker after it. A server enters the mode with
-- set_config('plinth.bus', 'collect', true); inserts outside it (watched-table triggers, SQL
-- sessions) are announced by NOTIFY as before, which every server still listens to.
-- The outbox holds one JSON text per line (JSON text never contains a raw newline).
CREATE OR REPLACE FUNCTION realtime.notify_message() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  v_message text := pg_catalog.json_build_object(
    'id', NEW.id, 'eventName', NEW.event_name, 'channelName', NEW.channel_name, 'payload', NEW.payload,
    'senderType', NEW.sender_type, 'senderId', NEW.sender_id, 'createdAt', NEW.created_at,
    'rowTable', CASE WHEN NEW.row_table IS NOT NULL THEN (
      SELECT pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(c.relname)
      FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE c.oid = NEW.row_table) END,
    'rowKey', NEW.row_key)::text;
BEGIN
  IF pg_catalog.current_setting('plinth.bus', true) = 'collect' THEN
    PERFORM pg_catalog.set_config('plinth.bus_outbox',
      coalesce(pg_catalog.current_setting('plinth.bus_outbox', true), '') || v_message || E'\n', true);
    RETURN NULL;
  END IF;
  PERFORM pg_catalog.pg_notify('realtime_message',
    CASE WHEN pg_catalog.octet_length(v_message) < 8000 THEN v_message ELSE NEW.id::text END);
  RETURN NULL;
END
$$;
