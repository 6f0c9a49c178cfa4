// The one row of scheduled-backup settings, its atomic claim of a due time, and retention.
import type { Queryable } from '../../core/db.js';

export interface BackupConfigRow {
  enabled: boolean;
  cronSchedule: string;
  retentionDays: number | null;
  nextBackupAt: Date | null;
}

const COLUMNS = `enabled, cron_schedule as "cronSchedule", retention_days as "retentionDays", next_backup_at as "nextBackupAt"`;

export async function readBackupConfig(db: Queryable): Promise<BackupConfigRow> {
  const [row] = await db.unsafe<BackupConfigRow[]>(`select ${COLUMNS} from system.database_backup_config`);
  return row as BackupConfigRow;
}

export async function writeBackupConfig(db: Queryable, c: BackupConfigRow): Promise<BackupConfigRow> {
  const [row] = await db.unsafe<BackupConfigRow[]>(
    `update system.database_backup_config
        set enabled = $1, cron_schedule = $2, retention_days = $3, next_backup_at = $4 returning ${COLUMNS}`,
    [c.enabled, c.cronSchedule, c.retentionDays, c.nextBackupAt],
  );
  return row as BackupConfigRow;
}

/** The settings when a scheduled backup is due at `now`, locked (another server skips them). */
export async function claimDueBackup(db: Queryable, now: Date): Promise<BackupConfigRow | undefined> {
  const [row] = await db.unsafe<BackupConfigRow[]>(
    `select ${COLUMNS} from system.database_backup_config
      where enabled and next_backup_at <= $1 for update skip locked`,
    [now],
  );
  return row;
}

export async function setNextBackupAt(db: Queryable, next: Date | null): Promise<void> {
  await db.unsafe('update system.database_backup_config set next_backup_at = $1', [next]);
}

/** Scheduled backups whose retention has passed (rows deleted; their blob ids returned). */
export async function deleteExpiredBackups(db: Queryable, now: Date): Promise<string[]> {
  const rows = await db.unsafe<{ blobId: string }[]>(
    `delete from system.database_backups where expires_at <= $1 and status <> 'running' returning blob_id as "blobId"`,
    [now],
  );
  return rows.map((r) => r.blobId);
}

/** expiresAt = createdAt + retention for finished scheduled backups (null when retention is off). */
export async function applyRetention(db: Queryable, retentionDays: number | null): Promise<void> {
  await db.unsafe(
    `update system.database_backups
        set expires_at = case when $1::int is null then null else created_at + make_interval(days => $1::int) end
      where trigger_source = 'scheduled' and status <> 'running'`,
    [retentionDays],
  );
}
