-- Realtime, a cheaper publish.
--
-- The channel match in PL/pgSQL: the same query, its plan cached by each connection (a LANGUAGE
-- sql function that cannot be inlined is planned again by every statement calling it, which was
-- a third of a publish's time in PostgreSQL).
CREATE OR REPLACE FUNCTION realtime.match_channel(p_channel_name text) RETURNS uuid
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (
    SELECT id FROM realtime.channels
    WHERE enabled AND (pattern = p_channel_name OR p_channel_name LIKE pattern)
    ORDER BY pattern = p_channel_name DESC, length(pattern) DESC
    LIMIT 1);
END
$$;

-- The NOTIFY of a committed message carries the whole message (as JSON) when it fits in
-- a notification (under 8000 bytes), so every server emits it straight from the notification
-- without reading the row back; a bigger message is still announced by its id alone and read
-- back. The JSON's fields are those delivery reads from the row: id, eventName, channelName,
-- payload, senderType, senderId, createdAt, and for a row change of a watched table rowTable
-- (schema-qualified, quoted) and rowKey.
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
  PERFORM pg_catalog.pg_notify('realtime_message',
    CASE WHEN pg_catalog.octet_length(v_message) < 8000 THEN v_message ELSE NEW.id::text END);
  RETURN NULL;
END
$$;
