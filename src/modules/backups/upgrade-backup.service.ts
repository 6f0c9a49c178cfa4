// The backup Plinth takes at start before it applies new platform migrations to a database that
// has data (src/upgrade.ts decides when): the same archive as any backup, in the same blob store,
// listed by `plinth backup list` as `before-upgrade-<time>` once it is complete.
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.js';
import { backupScope } from './backups.service.js';
import { dumpToBlob } from './dump.service.js';
import { hasBackupsTable, insertUpgradeBackup } from './upgrade-backup.repo.js';

export interface UpgradeBackup {
  id: string;
  name: string;
  sizeBytes: number;
  /** Where the archive's bytes are: a file path, or an s3:// URL. */
  location: string;
  /** Listed among the backups (false on a database from before backups existed). */
  listed: boolean;
}

export async function takeUpgradeBackup(
  deps: Pick<Deps, 'sql' | 'clock' | 'blobStore' | 'migrations' | 'config' | 'hmacKeys'>,
): Promise<UpgradeBackup> {
  const id = randomUUID();
  const blobId = `database-backup-${id}`;
  const createdAt = deps.clock.now();
  const name = `before-upgrade-${createdAt.toISOString().replace(/[:.]/g, '-')}`;
  const conn = await deps.sql.reserve();
  let sizeBytes: number;
  try {
    sizeBytes = await dumpToBlob(conn, backupScope(deps), deps.blobStore, blobId, createdAt);
  } finally {
    conn.release();
  }
  const listed = await hasBackupsTable(deps.sql);
  if (listed) {
    try {
      await insertUpgradeBackup(deps.sql, { id, name, blobId, sizeBytes, createdAt, completedAt: deps.clock.now() });
    } catch (err) {
      await deps.blobStore.remove(blobId).catch(() => {});
      throw err;
    }
  }
  return { id, name, sizeBytes, location: deps.blobStore.locate(blobId), listed };
}
