// The rows of system.database_backups: one per archive in the blob store.
import type { Queryable } from '../../core/db.js';

export interface BackupRow {
  id: string;
  name: string | null;
  triggerSource: 'manual' | 'scheduled';
  status: 'running' | 'completed' | 'failed';
  blobId: string;
  sizeBytes: string | null;
  errorMessage: string | null;
  createdBy: string | null;
  createdAt: Date;
  completedAt: Date | null;
  expiresAt: Date | null;
  importedAt: Date | null;
  /** The archive carries this project's signature: its SQL runs as made, unguarded, at restore. */
  signed: boolean;
}

const COLUMNS = `id, name, trigger_source as "triggerSource", status, blob_id as "blobId",
  size_bytes::text as "sizeBytes", error_message as "errorMessage", created_by as "createdBy",
  created_at as "createdAt", completed_at as "completedAt", expires_at as "expiresAt",
  imported_at as "importedAt", signed`;

export async function listBackups(db: Queryable): Promise<BackupRow[]> {
  return db.unsafe(`select ${COLUMNS} from system.database_backups order by created_at desc, id`);
}

export async function findBackup(db: Queryable, id: string): Promise<BackupRow | undefined> {
  const [row] = await db.unsafe<BackupRow[]>(`select ${COLUMNS} from system.database_backups where id = $1`, [id]);
  return row;
}

export async function insertBackup(
  db: Queryable,
  b: Pick<BackupRow, 'id' | 'name' | 'triggerSource' | 'blobId' | 'createdBy' | 'createdAt'>,
): Promise<BackupRow> {
  const [row] = await db.unsafe<BackupRow[]>(
    `insert into system.database_backups (id, name, trigger_source, status, blob_id, created_by, created_at, signed)
     values ($1, $2, $3, 'running', $4, $5, $6, true) returning ${COLUMNS}`,
    [b.id, b.name, b.triggerSource, b.blobId, b.createdBy, b.createdAt],
  );
  return row as BackupRow;
}

/** A completed backup from an uploaded archive (its bytes already in the blob store). */
export async function insertImportedBackup(
  db: Queryable,
  b: Pick<BackupRow, 'id' | 'name' | 'blobId' | 'createdBy' | 'createdAt' | 'importedAt' | 'signed'> & {
    sizeBytes: number;
  },
): Promise<BackupRow> {
  const [row] = await db.unsafe<BackupRow[]>(
    `insert into system.database_backups
       (id, name, trigger_source, status, blob_id, size_bytes, created_by, created_at, completed_at, imported_at, signed)
     values ($1, $2, 'manual', 'completed', $3, $4, $5, $6, $7, $7, $8) returning ${COLUMNS}`,
    [b.id, b.name, b.blobId, b.sizeBytes, b.createdBy, b.createdAt, b.importedAt, b.signed],
  );
  return row as BackupRow;
}

export async function backupNamed(db: Queryable, name: string): Promise<boolean> {
  const [row] = await db<{ taken: boolean }[]>`
    select exists (select 1 from system.database_backups where name = ${name}) as taken`;
  return row?.taken === true;
}

export async function finishBackup(
  db: Queryable,
  id: string,
  result: { status: 'completed'; sizeBytes: number; at: Date } | { status: 'failed'; errorMessage: string; at: Date },
): Promise<void> {
  await db.unsafe(
    `update system.database_backups set status = $2, size_bytes = $3, error_message = $4, completed_at = $5
      where id = $1 and status = 'running'`,
    [
      id,
      result.status,
      result.status === 'completed' ? result.sizeBytes : null,
      result.status === 'failed' ? result.errorMessage : null,
      result.at,
    ],
  );
}

/**
 * Marks running rows other than `keep` as failed (their server stopped while dumping), only while
 * no server holds the backup lock (a dump holds it throughout). The lock is looked at by the
 * same statement that updates: checked apart, another server could take the lock and start a
 * backup in between, and its fresh row would be failed.
 */
export async function failInterrupted(db: Queryable, keep: string[], at: Date): Promise<void> {
  await db.unsafe(
    `update system.database_backups set status = 'failed', error_message = 'Interrupted by a server restart.',
            completed_at = $2
      where status = 'running' and id <> all($1::uuid[])
        and not exists (select 1 from pg_locks
                         where locktype = 'advisory' and granted and objsubid = 2
                           and database = (select oid from pg_database where datname = current_database())
                           and classid = $3::int::oid and objid = $4::int::oid)`,
    [keep, at, LOCK_KEYS[0], LOCK_KEYS[1]],
  );
}

export async function renameBackup(db: Queryable, id: string, name: string | null): Promise<BackupRow | undefined> {
  const [row] = await db.unsafe<BackupRow[]>(
    `update system.database_backups set name = $2 where id = $1 returning ${COLUMNS}`,
    [id, name],
  );
  return row;
}

export async function deleteBackup(db: Queryable, id: string): Promise<void> {
  await db.unsafe('delete from system.database_backups where id = $1', [id]);
}

/** The advisory lock that serialises backups and restores (two int keys: "plin", issue 17). */
const LOCK_KEYS = [1886153070, 17] as const;

/** Takes the backup lock for the transaction; false when a backup or restore holds it. */
export async function tryOperationLock(db: Queryable): Promise<boolean> {
  const [row] = await db<{ locked: boolean }[]>`
    select pg_try_advisory_xact_lock(${LOCK_KEYS[0]}::int, ${LOCK_KEYS[1]}::int) as locked`;
  return row?.locked === true;
}

/** Takes the backup lock for the session (a backup's connection holds it until the dump ends). */
export async function tryOperationSessionLock(db: Queryable): Promise<boolean> {
  const [row] = await db<{ locked: boolean }[]>`
    select pg_try_advisory_lock(${LOCK_KEYS[0]}::int, ${LOCK_KEYS[1]}::int) as locked`;
  return row?.locked === true;
}

export async function unlockOperation(db: Queryable): Promise<void> {
  await db`select pg_advisory_unlock(${LOCK_KEYS[0]}::int, ${LOCK_KEYS[1]}::int)`;
}
