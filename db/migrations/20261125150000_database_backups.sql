-- Database backups: one row per archive in the blob store (see src/modules/backups). The rows are
-- never part of an archive, and a restore leaves them as they were.
CREATE TABLE system.database_backups (
  id uuid PRIMARY KEY,
  name text UNIQUE,
  trigger_source text NOT NULL CHECK (trigger_source IN ('manual', 'scheduled')),
  status text NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
  blob_id text NOT NULL,
  size_bytes bigint,
  error_message text,
  created_by text,
  created_at timestamptz NOT NULL,
  completed_at timestamptz,
  expires_at timestamptz
);
CREATE INDEX database_backups_created_at ON system.database_backups (created_at DESC);
