-- A test sign-in: the admin tries an identity provider from the console. Its flow signs nobody
-- in; the assertion consumer service keeps what the assertion said, or why it was refused, for
-- the console to show (until the flow expires). A test flow has no PKCE challenge.
ALTER TABLE auth.saml_flows
  ADD COLUMN purpose text NOT NULL DEFAULT 'sign-in' CHECK (purpose IN ('sign-in', 'test')),
  ADD COLUMN test_result jsonb,
  ALTER COLUMN code_challenge DROP NOT NULL,
  ADD CONSTRAINT saml_flows_sign_in_has_challenge CHECK (purpose = 'test' OR code_challenge IS NOT NULL);
