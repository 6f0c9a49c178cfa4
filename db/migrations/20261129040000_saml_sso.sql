-- SAML 2.0 single sign-on: the identity providers the admin registers (their metadata, signing
-- certificates and attribute mapping), the email domains each serves (a domain belongs to one
-- provider), the sign-in flows in progress (RelayState carries the flow id; the AuthnRequest id
-- binds the answer to the flow) and the assertion ids already spent (kept until they expire).

CREATE TABLE auth.saml_providers (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text,
  entity_id text NOT NULL UNIQUE,
  sso_url text NOT NULL,
  certificates text[] NOT NULL,
  metadata_xml text NOT NULL,
  metadata_url text,
  attribute_mapping jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

CREATE TABLE auth.saml_domains (
  domain text PRIMARY KEY CHECK (domain = lower(domain)),
  provider_id uuid NOT NULL REFERENCES auth.saml_providers (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL
);
CREATE INDEX saml_domains_provider_idx ON auth.saml_domains (provider_id);

CREATE TABLE auth.saml_flows (
  id uuid PRIMARY KEY,
  provider_id uuid NOT NULL REFERENCES auth.saml_providers (id) ON DELETE CASCADE,
  request_id text NOT NULL,
  redirect_uri text NOT NULL,
  code_challenge text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  consumed_at timestamptz
);
CREATE INDEX saml_flows_expiry_idx ON auth.saml_flows (expires_at);

CREATE TABLE auth.saml_assertions (
  provider_id uuid NOT NULL REFERENCES auth.saml_providers (id) ON DELETE CASCADE,
  assertion_id text NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (provider_id, assertion_id)
);
CREATE INDEX saml_assertions_expiry_idx ON auth.saml_assertions (expires_at);
