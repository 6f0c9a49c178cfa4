-- Whether a backup's archive carries a valid signature of this project (made here, or imported
-- and verified). An unsigned archive (imported with allowUnsigned) is restored only through the
-- admin SQL guard. Backups listed before signatures existed carry none.
ALTER TABLE system.database_backups ADD COLUMN signed boolean NOT NULL DEFAULT false;
