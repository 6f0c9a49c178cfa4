-- OAuth sign-in: the built-in providers' settings, custom OpenID Connect providers, and the
-- single-use codes (svc_code) that hand a finished provider sign-in to the app.

CREATE TABLE auth.oauth_configs (
  provider text PRIMARY KEY CHECK (provider IN (
    'google', 'github', 'discord', 'linkedin', 'facebook', 'apple', 'microsoft', 'x', 'spotify')),
  client_id text NOT NULL,
  client_secret_ciphertext text,
  scopes text[],
  redirect_uri text,
  native_client_ids text[] NOT NULL DEFAULT '{}',
  -- Overrides of the provider's endpoints (self-hosted identity providers, tests).
  authorization_url text,
  token_url text,
  userinfo_url text,
  jwks_url text,
  issuer text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE auth.custom_oauth_configs (
  key text PRIMARY KEY CHECK (key ~ '^[a-z0-9_-]{1,64}$'),
  name text NOT NULL,
  discovery_endpoint text NOT NULL,
  client_id text NOT NULL,
  client_secret_ciphertext text NOT NULL,
  scopes text[],
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- svc_code: stored as SHA-256, bound to the PKCE challenge the app sent at initiation.
CREATE TABLE auth.oauth_exchange_codes (
  code_hash bytea PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  code_challenge text NOT NULL,
  expires_at timestamptz NOT NULL,
  consumed_at timestamptz,
  created_at timestamptz NOT NULL
);
