-- Realtime table changes from logical replication (REALTIME_CHANGES=logical; docs/realtime-logical-replication.md).
--
-- Two ways a watched table's row changes reach realtime.messages, chosen per database in
-- realtime.change_capture:
--   'triggers' (the default): the AFTER trigger publishes inside the writing transaction, as before;
--   'logical': no trigger; the table is in the publication `plinth_realtime` with REPLICA IDENTITY
--     FULL (so UPDATE and DELETE carry the whole old row, as the trigger's OLD), and the server that
--     leads change capture reads its changes from a logical replication slot (pgoutput) and
--     publishes each through realtime.publish_captured_change.
-- Both end in realtime.publish_row_change: the same messages (event, channels, payload {type,
-- schema, table, new, old}, row_table, row_key), so delivery, RLS filtering and webhooks are the
-- same. A captured change's message ids derive from its commit LSN and position in the
-- transaction, so a change decoded twice (after a crash before its LSN was confirmed) is stored once.
--
-- Switching (realtime.set_change_capture) moves every watched table in one transaction: changes
-- committed before it were published by triggers, changes after it are decoded (publication
-- membership is read as of each change), so none is published twice or lost.

CREATE TABLE realtime.change_capture (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  mode text NOT NULL DEFAULT 'triggers' CHECK (mode IN ('triggers', 'logical')),
  updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO realtime.change_capture DEFAULT VALUES;
GRANT SELECT ON realtime.change_capture TO project_admin;

-- The replica identity a table had before logical capture made it FULL (restored when it leaves).
ALTER TABLE realtime.watched_tables ADD COLUMN prior_replica_identity text;

CREATE PUBLICATION plinth_realtime WITH (publish = 'insert, update, delete');

-- Publishes one row change of a watched table on its two channels. p_id_base (28 hex digits) makes
-- the messages' ids (…0001 for the table channel, …0002 for the row channel); NULL: random ids.
CREATE FUNCTION realtime.publish_row_change(
  p_relid oid, p_schema text, p_table text, p_op text, p_new jsonb, p_old jsonb, p_key_columns text[], p_id_base text
) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, realtime AS $$
DECLARE
  v_row jsonb := CASE WHEN p_op = 'DELETE' THEN p_old ELSE p_new END;
  v_table text := p_schema || '.' || p_table;
  v_key jsonb;
  v_key_text text;
  v_payload jsonb;
  v_channels text[];
BEGIN
  SELECT jsonb_object_agg(c, v_row -> c), string_agg(v_row ->> c, ',' ORDER BY n)
    INTO v_key, v_key_text
    FROM unnest(p_key_columns) WITH ORDINALITY AS k (c, n);
  v_payload := jsonb_build_object('type', p_op, 'schema', p_schema, 'table', p_table, 'new', p_new, 'old', p_old);
  v_channels := ARRAY['table:' || v_table, 'table:' || v_table || ':' || v_key_text];
  FOR i IN 1..2 LOOP
    INSERT INTO realtime.messages (id, event_name, channel_id, channel_name, payload, sender_type, row_table, row_key)
    SELECT coalesce((p_id_base || lpad(i::text, 4, '0'))::uuid, gen_random_uuid()), p_op, m.id, v_channels[i],
      v_payload, 'system', p_relid, v_key
    FROM (SELECT realtime.match_channel(v_channels[i]) AS id) m WHERE m.id IS NOT NULL
    ON CONFLICT (id) DO NOTHING;
  END LOOP;
END
$$;
REVOKE EXECUTE ON FUNCTION realtime.publish_row_change(oid, text, text, text, jsonb, jsonb, text[], text) FROM PUBLIC;

-- The trigger (triggers mode): TG_ARGV holds the primary key's column names.
CREATE OR REPLACE FUNCTION realtime.table_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, realtime AS $$
BEGIN
  PERFORM realtime.publish_row_change(TG_RELID, TG_TABLE_SCHEMA, TG_TABLE_NAME, TG_OP,
    CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE to_jsonb(NEW) END,
    CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE to_jsonb(OLD) END,
    TG_ARGV, NULL);
  RETURN NULL;
END
$$;

-- A decoded row image (column name → the text pgoutput sent) as the trigger's to_jsonb(NEW/OLD)
-- shows it: every value through its type's input function (the row's text form cast to the
-- table's row type), and stored generated columns (which pgoutput does not send) computed again.
CREATE FUNCTION realtime.row_image(p_relid oid, p_text jsonb) RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $$
DECLARE
  v_literal text;
  v_columns text;
  v_image jsonb;
BEGIN
  IF p_text IS NULL THEN
    RETURN NULL;
  END IF;
  SELECT '(' || string_agg(CASE WHEN p_text ->> a.attname IS NULL THEN ''
      ELSE '"' || replace(replace(p_text ->> a.attname, '\', '\\'), '"', '""') || '"' END, ',' ORDER BY a.attnum) || ')',
    string_agg(CASE WHEN a.attgenerated = 's' THEN format('(%s) AS %I', pg_get_expr(d.adbin, d.adrelid), a.attname)
      ELSE format('s.%I', a.attname) END, ', ' ORDER BY a.attnum)
    INTO v_literal, v_columns
    FROM pg_attribute a
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE a.attrelid = p_relid AND a.attnum > 0 AND NOT a.attisdropped;
  EXECUTE format('SELECT to_jsonb(r) FROM (SELECT %s FROM unnest(ARRAY[$1::text::%s]) s) r', v_columns, p_relid::regclass)
    INTO v_image USING v_literal;
  RETURN v_image;
END
$$;
REVOKE EXECUTE ON FUNCTION realtime.row_image(oid, jsonb) FROM PUBLIC;

-- Publishes one change decoded from the slot (the capture leader calls it). A table no longer
-- watched, or dropped, publishes nothing.
CREATE FUNCTION realtime.publish_captured_change(p_id_base text, p_relid oid, p_op text, p_new jsonb, p_old jsonb)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, realtime AS $$
DECLARE
  v_keys text[];
  v_schema text;
  v_name text;
BEGIN
  SELECT w.key_columns, n.nspname, c.relname INTO v_keys, v_schema, v_name
    FROM realtime.watched_tables w
    JOIN pg_class c ON c.oid = w.table_oid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE w.table_oid = p_relid;
  IF v_keys IS NULL THEN
    RETURN;
  END IF;
  PERFORM realtime.publish_row_change(p_relid, v_schema, v_name, p_op,
    realtime.row_image(p_relid, p_new), realtime.row_image(p_relid, p_old), v_keys, p_id_base);
END
$$;
REVOKE EXECUTE ON FUNCTION realtime.publish_captured_change(text, oid, text, jsonb, jsonb) FROM PUBLIC;

-- Puts one watched table in the given mode: the trigger (triggers) or the publication with
-- REPLICA IDENTITY FULL (logical); 'none' takes it out of both (unwatch). Idempotent.
CREATE FUNCTION realtime.apply_change_capture(p_table regclass, p_mode text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, realtime AS $$
DECLARE
  v_keys text[];
  v_prior text;
  v_identity "char";
  v_published boolean;
BEGIN
  SELECT key_columns, prior_replica_identity INTO v_keys, v_prior FROM realtime.watched_tables WHERE table_oid = p_table;
  SELECT EXISTS (SELECT FROM pg_publication_rel pr JOIN pg_publication p ON p.oid = pr.prpubid
    WHERE p.pubname = 'plinth_realtime' AND pr.prrelid = p_table) INTO v_published;
  SELECT c.relreplident INTO v_identity FROM pg_class c WHERE c.oid = p_table;
  -- Each statement only when it changes something (they lock the table); the trigger is made
  -- again in triggers mode, with the key columns as they are now.
  IF EXISTS (SELECT FROM pg_trigger WHERE tgrelid = p_table AND tgname = 'realtime_changes') THEN
    EXECUTE format('DROP TRIGGER realtime_changes ON %s', p_table);
  END IF;
  IF p_mode = 'logical' THEN
    IF v_prior IS NULL THEN
      v_prior := CASE v_identity WHEN 'd' THEN 'DEFAULT' WHEN 'n' THEN 'NOTHING' WHEN 'f' THEN 'FULL'
        ELSE (SELECT format('USING INDEX %I', ic.relname) FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
              WHERE i.indrelid = p_table AND i.indisreplident) END;
      UPDATE realtime.watched_tables SET prior_replica_identity = coalesce(v_prior, 'DEFAULT') WHERE table_oid = p_table;
    END IF;
    IF v_identity <> 'f' THEN
      EXECUTE format('ALTER TABLE %s REPLICA IDENTITY FULL', p_table);
    END IF;
    IF NOT v_published THEN
      EXECUTE format('ALTER PUBLICATION plinth_realtime ADD TABLE %s', p_table);
    END IF;
    RETURN;
  END IF;
  IF v_published THEN
    EXECUTE format('ALTER PUBLICATION plinth_realtime DROP TABLE %s', p_table);
  END IF;
  IF v_prior IS NOT NULL THEN
    EXECUTE format('ALTER TABLE %s REPLICA IDENTITY %s', p_table, v_prior);
    UPDATE realtime.watched_tables SET prior_replica_identity = NULL WHERE table_oid = p_table;
  END IF;
  IF p_mode = 'triggers' THEN
    EXECUTE format(
      'CREATE TRIGGER realtime_changes AFTER INSERT OR UPDATE OR DELETE ON %s FOR EACH ROW EXECUTE FUNCTION realtime.table_changed(%s)',
      p_table, (SELECT string_agg(quote_literal(k), ', ') FROM unnest(v_keys) k));
  END IF;
END
$$;
REVOKE EXECUTE ON FUNCTION realtime.apply_change_capture(regclass, text) FROM PUBLIC;

-- Switches every watched table to `p_mode` in this transaction; true when the mode changed.
CREATE FUNCTION realtime.set_change_capture(p_mode text) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, realtime AS $$
DECLARE
  v_current text;
  v_table oid;
BEGIN
  IF p_mode NOT IN ('triggers', 'logical') THEN
    RAISE EXCEPTION 'realtime.set_change_capture: unknown mode %', p_mode USING ERRCODE = '22023';
  END IF;
  PERFORM pg_advisory_xact_lock(hashtext('realtime.change_capture'));
  SELECT mode INTO v_current FROM realtime.change_capture;
  FOR v_table IN SELECT w.table_oid FROM realtime.watched_tables w JOIN pg_class c ON c.oid = w.table_oid LOOP
    PERFORM realtime.apply_change_capture(v_table::regclass, p_mode);
  END LOOP;
  UPDATE realtime.change_capture SET mode = p_mode, updated_at = now() WHERE mode IS DISTINCT FROM p_mode;
  RETURN v_current IS DISTINCT FROM p_mode;
END
$$;
REVOKE EXECUTE ON FUNCTION realtime.set_change_capture(text) FROM PUBLIC;

-- Starts change events for a table (idempotent), in the database's capture mode; returns the table's channel name.
CREATE OR REPLACE FUNCTION realtime.watch_table(p_table regclass) RETURNS text
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
  PERFORM pg_advisory_xact_lock(hashtext('realtime.change_capture'));
  -- `_` and `\` are LIKE wildcards/escapes: escaped so the row pattern matches this table only.
  INSERT INTO realtime.channels (pattern, description) VALUES
    ('table:' || v_schema || '.' || v_name, 'Changes of ' || v_schema || '.' || v_name),
    ('table:' || replace(replace(v_schema || '.' || v_name, '\', '\\'), '_', '\_') || ':%',
     'Changes of one row of ' || v_schema || '.' || v_name)
  ON CONFLICT (pattern) DO NOTHING;
  INSERT INTO realtime.watched_tables (table_oid, table_name, key_columns)
  VALUES (p_table, v_schema || '.' || v_name, v_keys)
  ON CONFLICT (table_oid) DO UPDATE SET key_columns = EXCLUDED.key_columns, table_name = EXCLUDED.table_name;
  PERFORM realtime.apply_change_capture(p_table, (SELECT mode FROM realtime.change_capture));
  RETURN 'table:' || v_schema || '.' || v_name;
END
$$;

-- Stops change events for a table: no trigger, out of the publication (its replica identity as it
-- was), the two channel patterns dropped; true when it was watched.
CREATE OR REPLACE FUNCTION realtime.unwatch_table(p_table regclass) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, realtime AS $$
DECLARE
  v_name text;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('realtime.change_capture'));
  SELECT table_name INTO v_name FROM realtime.watched_tables WHERE table_oid = p_table;
  IF v_name IS NULL THEN
    RETURN false;
  END IF;
  PERFORM realtime.apply_change_capture(p_table, 'none');
  DELETE FROM realtime.watched_tables WHERE table_oid = p_table;
  DELETE FROM realtime.channels
    WHERE pattern IN ('table:' || v_name, 'table:' || replace(replace(v_name, '\', '\\'), '_', '\_') || ':%');
  RETURN true;
END
$$;
