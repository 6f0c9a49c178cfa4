-- Backups uploaded from an archive (POST /api/database/backups/import), e.g. made on another
-- server: when the archive arrived here. Null for backups this server made.
ALTER TABLE system.database_backups ADD COLUMN imported_at timestamptz;
