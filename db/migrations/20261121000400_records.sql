-- Deny by default for data: request roles may reach tables in `public`, and row-level security
-- decides which rows. Every table created in `public` gets RLS enabled with a policy for the
-- admin only, until the developer writes policies of their own. Any DDL bumps a version that
-- the servers' schema caches compare against (and announces it with NOTIFY).

GRANT USAGE ON SCHEMA public TO anon, authenticated, project_admin;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO anon, authenticated, project_admin;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO anon, authenticated, project_admin;
ALTER DEFAULT PRIVILEGES IN SCHEMA public
  GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO anon, authenticated, project_admin;
ALTER DEFAULT PRIVILEGES IN SCHEMA public
  GRANT USAGE, SELECT ON SEQUENCES TO anon, authenticated, project_admin;
ALTER DEFAULT PRIVILEGES IN SCHEMA public
  GRANT EXECUTE ON FUNCTIONS TO anon, authenticated, project_admin;

CREATE TABLE system.schema_version (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  version bigint NOT NULL
);
INSERT INTO system.schema_version VALUES (true, 1);

CREATE FUNCTION system.bump_schema_version() RETURNS void
LANGUAGE sql AS $$
  UPDATE system.schema_version SET version = version + 1;
  SELECT pg_notify('plinth_schema', (SELECT version::text FROM system.schema_version));
$$;

-- New tables in public: RLS on, admin-only policy.
CREATE FUNCTION system.secure_new_tables() RETURNS event_trigger
LANGUAGE plpgsql AS $$
DECLARE
  obj record;
BEGIN
  FOR obj IN
    SELECT * FROM pg_event_trigger_ddl_commands()
    WHERE object_type = 'table' AND schema_name = 'public'
      AND command_tag IN ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO')
  LOOP
    EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', obj.object_identity);
    EXECUTE format(
      'CREATE POLICY project_admin_all ON %s AS PERMISSIVE FOR ALL TO project_admin USING (true) WITH CHECK (true)',
      obj.object_identity);
  END LOOP;
END
$$;

CREATE FUNCTION system.note_schema_change() RETURNS event_trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM system.bump_schema_version();
END
$$;

-- Event triggers need a superuser; without one, tables must be secured by hand and schema
-- changes are noticed after migrations through the API only.
DO $$
BEGIN
  CREATE EVENT TRIGGER plinth_secure_new_tables ON ddl_command_end
    WHEN TAG IN ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO')
    EXECUTE FUNCTION system.secure_new_tables();
  CREATE EVENT TRIGGER plinth_note_ddl ON ddl_command_end
    EXECUTE FUNCTION system.note_schema_change();
  CREATE EVENT TRIGGER plinth_note_drop ON sql_drop
    EXECUTE FUNCTION system.note_schema_change();
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'Plinth: not a superuser, so new tables are not secured automatically';
END
$$;
