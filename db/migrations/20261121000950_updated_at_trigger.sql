-- Tables created through the table admin API keep their `updated_at` current: each gets a BEFORE
-- UPDATE trigger calling this function, which sets it to now() (the transaction's start, as the
-- column's default does on insert). A table whose `updated_at` was dropped or renamed later is
-- left as it is rather than failing its updates.
CREATE FUNCTION system.touch_updated_at() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RETURN jsonb_populate_record(NEW, jsonb_build_object('updated_at', now()));
END
$$;
