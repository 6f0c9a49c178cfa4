-- Realtime, beyond the reference platform: table changes and outbound webhooks.
--
-- Table changes: realtime.watch_table('public.todos') installs an AFTER INSERT/UPDATE/DELETE
-- trigger that publishes each row change (event INSERT/UPDATE/DELETE, payload {type, schema,
-- table, new, old}) on the channels `table:<schema>.<table>` and `table:<schema>.<table>:<key>`
-- (key: the primary key's values joined by ','); it creates those two channel patterns. A change
-- message remembers its table and row key (row_table, row_key) so each server delivers it only to
-- the sockets whose principal may SELECT the row under RLS at delivery time.
--
-- Webhooks: each message on a channel with webhook_urls gets one row per URL in
-- realtime.webhook_deliveries, in the message's own transaction; servers claim due rows with
-- FOR UPDATE SKIP LOCKED and a lease, POST them signed, and retry with exponential backoff.

ALTER TABLE realtime.messages ADD COLUMN row_table oid, ADD COLUMN row_key jsonb;

CREATE TABLE realtime.watched_tables (
  table_oid oid PRIMARY KEY,
  table_name text NOT NULL,
  key_columns text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- The trigger: TG_ARGV holds the primary key's column names.
CREATE FUNCTION realtime.table_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, realtime AS $$
DECLARE
  v_row jsonb := to_jsonb(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END);
  v_table text := TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME;
  v_key jsonb;
  v_key_text text;
  v_payload jsonb;
  v_channel text;
BEGIN
  SELECT jsonb_object_agg(c, v_row -> c), string_agg(v_row ->> c, ',' ORDER BY n)
    INTO v_key, v_key_text
    FROM unnest(TG_ARGV) WITH ORDINALITY AS k (c, n);
  v_payload := jsonb_build_object(
    'type', TG_OP, 'schema', TG_TABLE_SCHEMA, 'table', TG_TABLE_NAME,
    'new', CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE to_jsonb(NEW) END,
    'old', CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE to_jsonb(OLD) END);
  FOREACH v_channel IN ARRAY ARRAY['table:' || v_table, 'table:' || v_table || ':' || v_key_text] LOOP
    INSERT INTO realtime.messages (event_name, channel_id, channel_name, payload, sender_type, row_table, row_key)
    SELECT TG_OP, m.id, v_channel, v_payload, 'system', TG_RELID, v_key
    FROM (SELECT realtime.match_channel(v_channel) AS id) m WHERE m.id IS NOT NULL;
  END LOOP;
  RETURN NULL;
END
$$;

-- Starts change events for a table (idempotent); returns the table's channel name.
CREATE FUNCTION realtime.watch_table(p_table regclass) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, realtime AS $$
DECLARE
  v_schema text;
  v_name text;
  v_keys text[];
BEGIN
  SELECT n.nspname, c.relname INTO v_schema, v_name
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.oid = p_table AND c.relkind IN ('r', 'p');
  IF v_name IS NULL THEN
    RAISE EXCEPTION 'realtime.watch_table: % is not a table', p_table USING ERRCODE = '42809';
  END IF;
  SELECT array_agg(a.attname::text ORDER BY k.n) INTO v_keys
    FROM pg_index i
    CROSS JOIN unnest(i.indkey) WITH ORDINALITY AS k (attnum, n)
    JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
    WHERE i.indrelid = p_table AND i.indisprimary;
  IF v_keys IS NULL THEN
    RAISE EXCEPTION 'realtime.watch_table: % has no primary key', p_table USING ERRCODE = '55000',
      HINT = 'Add a primary key: row channels and visibility checks find a row by it.';
  END IF;
  EXECUTE format('DROP TRIGGER IF EXISTS realtime_changes ON %s', p_table);
  EXECUTE format(
    'CREATE TRIGGER realtime_changes AFTER INSERT OR UPDATE OR DELETE ON %s FOR EACH ROW EXECUTE FUNCTION realtime.table_changed(%s)',
    p_table, (SELECT string_agg(quote_literal(k), ', ') FROM unnest(v_keys) k));
  -- `_` and `\` are LIKE wildcards/escapes: escaped so the row pattern matches this table only.
  INSERT INTO realtime.channels (pattern, description) VALUES
    ('table:' || v_schema || '.' || v_name, 'Changes of ' || v_schema || '.' || v_name),
    ('table:' || replace(replace(v_schema || '.' || v_name, '\', '\\'), '_', '\_') || ':%',
     'Changes of one row of ' || v_schema || '.' || v_name)
  ON CONFLICT (pattern) DO NOTHING;
  INSERT INTO realtime.watched_tables (table_oid, table_name, key_columns)
  VALUES (p_table, v_schema || '.' || v_name, v_keys)
  ON CONFLICT (table_oid) DO UPDATE SET key_columns = EXCLUDED.key_columns, table_name = EXCLUDED.table_name;
  RETURN 'table:' || v_schema || '.' || v_name;
END
$$;

-- Stops change events for a table: drops the trigger and the two channel patterns; true when it was watched.
CREATE FUNCTION realtime.unwatch_table(p_table regclass) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, realtime AS $$
DECLARE
  v_name text;
BEGIN
  DELETE FROM realtime.watched_tables WHERE table_oid = p_table RETURNING table_name INTO v_name;
  IF v_name IS NULL THEN
    RETURN false;
  END IF;
  EXECUTE format('DROP TRIGGER IF EXISTS realtime_changes ON %s', p_table);
  DELETE FROM realtime.channels
    WHERE pattern IN ('table:' || v_name, 'table:' || replace(replace(v_name, '\', '\\'), '_', '\_') || ':%');
  RETURN true;
END
$$;
REVOKE EXECUTE ON FUNCTION realtime.watch_table(regclass), realtime.unwatch_table(regclass) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION realtime.watch_table(regclass), realtime.unwatch_table(regclass) TO project_admin;
GRANT SELECT ON realtime.watched_tables TO project_admin;

-- Webhook deliveries: one per message and URL; `attempts` 0 means due at once.
CREATE TABLE realtime.webhook_deliveries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  message_id uuid NOT NULL REFERENCES realtime.messages (id) ON DELETE CASCADE,
  url text NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_status integer,
  last_error text,
  delivered_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_due_idx ON realtime.webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_message_idx ON realtime.webhook_deliveries (message_id);
CREATE INDEX webhook_deliveries_created_idx ON realtime.webhook_deliveries (created_at DESC);
CREATE TRIGGER webhook_deliveries_touch_updated_at BEFORE UPDATE ON realtime.webhook_deliveries
  FOR EACH ROW EXECUTE FUNCTION system.touch_updated_at();

CREATE FUNCTION realtime.count_webhooks() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, realtime AS $$
BEGIN
  SELECT coalesce(cardinality(c.webhook_urls), 0) INTO NEW.wh_audience_count
    FROM realtime.channels c WHERE c.id = NEW.channel_id AND c.enabled;
  NEW.wh_audience_count := coalesce(NEW.wh_audience_count, 0);
  RETURN NEW;
END
$$;
CREATE TRIGGER messages_count_webhooks BEFORE INSERT ON realtime.messages
  FOR EACH ROW EXECUTE FUNCTION realtime.count_webhooks();

CREATE FUNCTION realtime.enqueue_webhooks() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, realtime AS $$
BEGIN
  IF NEW.wh_audience_count > 0 THEN
    INSERT INTO realtime.webhook_deliveries (message_id, url)
    SELECT NEW.id, u FROM realtime.channels c, unnest(c.webhook_urls) AS u
    WHERE c.id = NEW.channel_id AND c.enabled;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER messages_enqueue_webhooks AFTER INSERT ON realtime.messages
  FOR EACH ROW EXECUTE FUNCTION realtime.enqueue_webhooks();

GRANT SELECT, UPDATE ON realtime.webhook_deliveries TO project_admin;
