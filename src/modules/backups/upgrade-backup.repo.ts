// The row of a backup Plinth took before applying platform migrations. It is written by the
// previous version's schema (the migrations are not applied yet), so it names only the columns
// system.database_backups had from its first migration, and `signed` where that column exists.
import type { Queryable } from '../../core/db.js';

/** Whether this database has the backups table at all (a version from before backups has none). */
export async function hasBackupsTable(db: Queryable): Promise<boolean> {
  const [row] = await db<{ found: string | null }[]>`select to_regclass('system.database_backups')::text as found`;
  return Boolean(row?.found);
}

export async function insertUpgradeBackup(
  db: Queryable,
  b: { id: string; name: string; blobId: string; sizeBytes: number; createdAt: Date; completedAt: Date },
): Promise<void> {
  await db`insert into system.database_backups
             (id, name, trigger_source, status, blob_id, size_bytes, created_at, completed_at)
           values (${b.id}, ${b.name}, 'manual', 'completed', ${b.blobId}, ${b.sizeBytes}, ${b.createdAt}, ${b.completedAt})`;
  // Made here, under this project's key: as signed as any backup this server takes.
  const [signed] = await db<{ found: boolean }[]>`
    select exists (select 1 from information_schema.columns
                    where table_schema = 'system' and table_name = 'database_backups' and column_name = 'signed') as found`;
  if (signed?.found) await db`update system.database_backups set signed = true where id = ${b.id}`;
}
