-- What SQL written for Supabase expects to find: the `service_role` role (the API key's role:
-- project_admin is a member, so grants and policies written `to service_role` apply to API-key
-- requests), the `extensions` schema that extensions are installed into, and auth.users' columns
-- raw_user_meta_data / raw_app_meta_data that triggers such as handle_new_user read.

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'service_role') THEN
    BEGIN
      CREATE ROLE service_role NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN
      NULL; -- another database of this cluster created it concurrently
    END;
  END IF;
  IF NOT pg_has_role('project_admin', 'service_role', 'MEMBER') THEN
    GRANT service_role TO project_admin;
  END IF;
END
$$;

-- Supabase grants what it creates in public to anon, authenticated and service_role; Plinth
-- already does so for anon and authenticated (row-level security, on by default, decides rows).
GRANT USAGE ON SCHEMA public, auth TO service_role;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO service_role;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT EXECUTE ON FUNCTIONS TO service_role;
GRANT EXECUTE ON FUNCTION auth.jwt(), auth.uid(), auth.role(), auth.email() TO service_role;

-- `create extension ... with schema extensions` and `extensions.uuid_generate_v4()` work as on
-- Supabase; nothing is preinstalled, so `create extension "uuid-ossp"` without a schema still puts
-- its functions in public, where unqualified calls find them.
CREATE SCHEMA IF NOT EXISTS extensions;
GRANT USAGE ON SCHEMA extensions TO anon, authenticated, service_role, project_admin;

-- Supabase's names for the sign-up data (Plinth's profile) and the admin-held metadata, computed
-- from Plinth's columns so that there is one copy to write and triggers read the same values.
ALTER TABLE auth.users
  ADD COLUMN raw_user_meta_data jsonb GENERATED ALWAYS AS (profile) STORED,
  ADD COLUMN raw_app_meta_data jsonb GENERATED ALWAYS AS (metadata) STORED;
