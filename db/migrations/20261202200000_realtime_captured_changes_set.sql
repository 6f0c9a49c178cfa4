-- Logical change capture publishes a batch of decoded changes in one statement (issue 38).
--
-- realtime.publish_captured_change took one change per call, and each call looked its table up,
-- built its row images with a dynamic EXECUTE of their own and inserted its two messages: the
-- leader's publishing, not the writers, set the end-to-end rate. realtime.publish_captured_changes
-- takes the changes of many transactions, in commit order, as one JSON array and does the same work
-- by set: one dynamic statement per table in the batch turns all of that table's row images into
-- the trigger's JSON, and one INSERT writes every message, in the batch's order (so the
-- notifications go out in commit order). The messages, their ids and their payloads are those
-- realtime.publish_captured_change makes (ids from the commit LSN and position, ON CONFLICT DO
-- NOTHING, so a batch decoded again is stored once). The single-change function stays for a
-- server of the previous version during an upgrade.
--
-- p_changes: [{"i": id base (28 hex), "x": its transaction's id, "r": table oid,
--   "o": "INSERT"|"UPDATE"|"DELETE", "n": new row image, "d": old row image}, ...], each image an
--   object of column → the text pgoutput sent (absent for none). A change of a table no longer
--   watched publishes nothing. Returns the number of messages stored.
--
-- A commit can be decoded a moment before other sessions see it: the walsender sends a transaction
-- once its commit record is flushed, and the committing backend leaves the proc array (its changes
-- become visible) only after that. Delivery checks an INSERT's or UPDATE's row as it is now, so a
-- message announced in that moment would reach no one. The function first waits (1 ms at a time,
-- up to 5 s) until every one of the batch's transactions is visible in a new snapshot. Each check is
-- a new statement and so takes a new snapshot (READ COMMITTED, VOLATILE function).
CREATE FUNCTION realtime.publish_captured_changes(p_changes jsonb) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, realtime AS $$
DECLARE
  v_table record;
  v_keys text[];
  v_literals text[];
  v_part jsonb;
  -- 'n<position>' / 'o<position>' → the new / old row image as to_jsonb(NEW/OLD) shows it.
  v_images jsonb := '{}';
  v_stored integer;
  v_xids bigint[] := ARRAY(SELECT DISTINCT (c ->> 'x')::bigint FROM jsonb_array_elements(p_changes) c WHERE c ? 'x');
  v_deadline timestamptz := clock_timestamp() + interval '5 seconds';
BEGIN
  -- pgoutput sends 32-bit ids: each is given the epoch of the snapshot's xmax (the one before when
  -- that would put it more than 2^31 past xmax) to ask pg_visible_in_snapshot about it.
  WHILE clock_timestamp() < v_deadline AND EXISTS (
    SELECT FROM (SELECT pg_current_snapshot() AS snap) s,
      LATERAL (SELECT pg_snapshot_xmax(s.snap)::text::bigint AS xmax) m,
      LATERAL (SELECT (m.xmax & -4294967296) | x AS full_xid FROM unnest(v_xids) x) f
    WHERE NOT pg_visible_in_snapshot(
      (CASE WHEN f.full_xid - m.xmax > 2147483648 THEN f.full_xid - 4294967296 ELSE f.full_xid END)::text::xid8, s.snap))
  LOOP
    PERFORM pg_sleep(0.001);
  END LOOP;
  FOR v_table IN
    SELECT w.table_oid AS relid,
      (SELECT string_agg(CASE WHEN a.attgenerated = 's' THEN format('(%s) AS %I', pg_get_expr(d.adbin, d.adrelid), a.attname)
          ELSE format('s.%I', a.attname) END, ', ' ORDER BY a.attnum)
        FROM pg_attribute a
        LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE a.attrelid = w.table_oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns
    FROM realtime.watched_tables w
    WHERE w.table_oid IN (SELECT DISTINCT (c ->> 'r')::oid FROM jsonb_array_elements(p_changes) c)
      AND EXISTS (SELECT FROM pg_class WHERE oid = w.table_oid)
  LOOP
    -- Each image as the text form of the table's row type (what row_image builds for one).
    SELECT array_agg(x.k), array_agg(x.lit) INTO v_keys, v_literals
    FROM (
      SELECT v.side || e.ord AS k,
        '(' || string_agg(CASE WHEN v.img ->> a.attname IS NULL THEN ''
          ELSE '"' || replace(replace(v.img ->> a.attname, '\', '\\'), '"', '""') || '"' END, ',' ORDER BY a.attnum) || ')' AS lit
      FROM jsonb_array_elements(p_changes) WITH ORDINALITY AS e (c, ord)
      CROSS JOIN LATERAL (VALUES ('n', e.c -> 'n'), ('o', e.c -> 'd')) AS v (side, img)
      JOIN pg_attribute a ON a.attrelid = v_table.relid AND a.attnum > 0 AND NOT a.attisdropped
      WHERE (e.c ->> 'r')::oid = v_table.relid AND jsonb_typeof(v.img) = 'object'
      GROUP BY v.side, e.ord
    ) x;
    CONTINUE WHEN v_keys IS NULL;
    -- Every value through its type's input function, stored generated columns computed again;
    -- the inner scope sees only the row's columns (a generated column's expression names them).
    EXECUTE format(
      'SELECT jsonb_object_agg(u.k, (SELECT to_jsonb(r) FROM (SELECT %s FROM unnest(ARRAY[u.lit::%s]) s) r))
       FROM unnest($1::text[], $2::text[]) AS u (k, lit)',
      v_table.columns, v_table.relid::regclass)
      INTO v_part USING v_keys, v_literals;
    v_images := v_images || coalesce(v_part, '{}');
  END LOOP;

  INSERT INTO realtime.messages (id, event_name, channel_id, channel_name, payload, sender_type, row_table, row_key)
  SELECT (x.id_base || lpad(ch.i::text, 4, '0'))::uuid, x.op, m.id, ch.name,
    jsonb_build_object('type', x.op, 'schema', x.nspname, 'table', x.relname, 'new', x.new_image, 'old', x.old_image),
    'system', x.relid, k.key
  FROM (
    SELECT e.ord, e.c ->> 'i' AS id_base, w.table_oid AS relid, e.c ->> 'o' AS op, w.key_columns,
      n.nspname::text AS nspname, cl.relname::text AS relname,
      v_images -> ('n' || e.ord) AS new_image, v_images -> ('o' || e.ord) AS old_image
    FROM jsonb_array_elements(p_changes) WITH ORDINALITY AS e (c, ord)
    JOIN realtime.watched_tables w ON w.table_oid = (e.c ->> 'r')::oid
    JOIN pg_class cl ON cl.oid = w.table_oid
    JOIN pg_namespace n ON n.oid = cl.relnamespace
  ) x
  CROSS JOIN LATERAL (
    SELECT jsonb_object_agg(kc.c, r.img -> kc.c) AS key, string_agg(r.img ->> kc.c, ',' ORDER BY kc.n) AS key_text
    FROM (SELECT CASE WHEN x.op = 'DELETE' THEN x.old_image ELSE x.new_image END AS img) r,
      unnest(x.key_columns) WITH ORDINALITY AS kc (c, n)
  ) k
  CROSS JOIN LATERAL (VALUES
    (1, 'table:' || x.nspname || '.' || x.relname),
    (2, 'table:' || x.nspname || '.' || x.relname || ':' || k.key_text)) AS ch (i, name)
  CROSS JOIN LATERAL (SELECT realtime.match_channel(ch.name) AS id) m
  WHERE m.id IS NOT NULL
  ORDER BY x.ord, ch.i
  ON CONFLICT (id) DO NOTHING;
  GET DIAGNOSTICS v_stored = ROW_COUNT;
  RETURN v_stored;
END
$$;
REVOKE EXECUTE ON FUNCTION realtime.publish_captured_changes(jsonb) FROM PUBLIC;
