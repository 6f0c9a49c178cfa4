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

-- Scheduled backups (one row): off by default, daily at midnight UTC, scheduled backups kept 7 days.
-- next_backup_at is claimed atomically, so one server takes each due time.
CREATE TABLE system.database_backup_config (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  enabled boolean NOT NULL DEFAULT false,
  cron_schedule text NOT NULL DEFAULT '0 0 * * *',
  retention_days int CHECK (retention_days BETWEEN 1 AND 3650) DEFAULT 7,
  next_backup_at timestamptz
);
INSERT INTO system.database_backup_config DEFAULT VALUES;
