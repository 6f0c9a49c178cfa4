-- Saved SQL snippets of the dashboard's SQL editor (see src/modules/migrations/sql-snippets.*):
-- shared by the project's admins, kept server-side so they survive browsers.
CREATE TABLE system.sql_snippets (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL UNIQUE,
  sql text NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
