-- A SAML sign-in remembers the wire it started on: 'supabase' (POST /auth/v1/sso) sends the
-- browser back with `code` for supabase-js's exchangeCodeForSession; NULL is Plinth's own wire.
ALTER TABLE auth.saml_flows ADD COLUMN wire text CHECK (wire IN ('supabase'));
