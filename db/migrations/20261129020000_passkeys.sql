-- Passkeys (WebAuthn credentials) of users, and the challenges the server handed out for them:
-- stored in PostgreSQL so any server of a scaled-out deployment can verify, each used once.

CREATE TABLE auth.passkeys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
  -- The authenticator's credential id, base64url as the browser sends it.
  credential_id text NOT NULL UNIQUE CHECK (credential_id ~ '^[A-Za-z0-9_-]+$' AND length(credential_id) <= 1400),
  -- COSE-encoded public key.
  public_key bytea NOT NULL,
  -- The authenticator's signature counter; an assertion must raise it (unless both stay 0).
  counter bigint NOT NULL DEFAULT 0 CHECK (counter >= 0),
  transports text[] NOT NULL DEFAULT '{}',
  device_type text NOT NULL CHECK (device_type IN ('singleDevice', 'multiDevice')),
  backed_up boolean NOT NULL,
  aaguid text NOT NULL,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  created_at timestamptz NOT NULL,
  last_used_at timestamptz
);
CREATE INDEX passkeys_user_id_idx ON auth.passkeys (user_id, created_at);

-- A challenge for one ceremony: 'registration' (a signed-in user adds a passkey), 'sign-in'
-- (discoverable: no user yet) or 'assurance' (a session proves a passkey of its user: aal2).
CREATE TABLE auth.webauthn_challenges (
  id uuid PRIMARY KEY,
  purpose text NOT NULL CHECK (purpose IN ('registration', 'sign-in', 'assurance')),
  challenge text NOT NULL UNIQUE,
  user_id uuid REFERENCES auth.users (id) ON DELETE CASCADE,
  session_id uuid REFERENCES auth.sessions (id) ON DELETE CASCADE,
  -- The name the user asked for at registration.
  passkey_name text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  CHECK ((purpose = 'sign-in') = (user_id IS NULL))
);
CREATE INDEX webauthn_challenges_expires_at_idx ON auth.webauthn_challenges (expires_at);
