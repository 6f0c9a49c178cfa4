-- Anonymous users (no email until they convert; `is_anonymous` in the user and the token), the
-- settings of anonymous sign-in and of linking OAuth accounts by email, and OAuth link codes
-- (a svc_code that links a provider account to the signed-in user instead of signing in).

ALTER TABLE auth.users ALTER COLUMN email DROP NOT NULL;
ALTER TABLE auth.users ADD COLUMN is_anonymous boolean NOT NULL DEFAULT false;
-- The cleanup job walks only anonymous users.
CREATE INDEX users_anonymous_idx ON auth.users (updated_at) WHERE is_anonymous;

-- A user as the API shows it, now with is_anonymous (appended: CREATE OR REPLACE keeps columns).
CREATE OR REPLACE VIEW auth.user_records AS
SELECT
  u.id, u.email, u.email_verified, u.profile, u.metadata, u.created_at, u.updated_at,
  ARRAY(
    SELECT DISTINCT p.provider FROM (
      SELECT 'email' AS provider WHERE u.password_hash IS NOT NULL
      UNION ALL
      SELECT up.provider FROM auth.user_providers up WHERE up.user_id = u.id
    ) p ORDER BY 1
  ) AS providers,
  u.is_anonymous
FROM auth.users u;

ALTER TABLE auth.config
  ADD COLUMN anonymous_sign_ins_enabled boolean NOT NULL DEFAULT false,
  ADD COLUMN anonymous_retention_days integer NOT NULL DEFAULT 30
    CHECK (anonymous_retention_days BETWEEN 1 AND 3650),
  ADD COLUMN link_oauth_by_email boolean NOT NULL DEFAULT false;

-- A link code carries the provider account to link; it is spent only by its user's signed-in
-- client with the PKCE verifier (never by the sign-in exchange).
ALTER TABLE auth.oauth_exchange_codes
  ADD COLUMN link_provider text,
  ADD COLUMN link_account_id text,
  ADD COLUMN link_data jsonb,
  ADD CHECK ((link_provider IS NULL) = (link_account_id IS NULL));
