-- The history of the developer's own migrations (POST /api/database/migrations): one row per
-- applied migration, written in the same transaction as its SQL, never edited afterwards.
CREATE TABLE system.custom_migrations (
  version text PRIMARY KEY CHECK (version ~ '^[0-9]{1,64}$'),
  name text NOT NULL CHECK (name ~ '^[a-z0-9-]+$'),
  statements text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- Versions compare as integers, not strings ('9' is older than '10').
CREATE UNIQUE INDEX custom_migrations_numeric_version ON system.custom_migrations ((version::numeric));
