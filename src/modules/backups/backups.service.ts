// Backups: create (the dump runs in the background, gzip-streamed into the blob store), list,
// rename, download, delete and restore. One backup or restore at a time; the running dumps of
// this process are tracked so a list can tell them from ones a stopped server left `running`.
import { randomUUID } from 'node:crypto';
import { finished, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { ReservedSql } from 'postgres';
import type { Deps } from '../../deps.js';
import { AppError } from '../../core/errors.js';
import { asPgError, withPgOverrides } from '../../core/pg-errors.js';
import * as config from './backup-config.repo.js';
import { nextBackupTime } from './backup-schedule.js';
import * as repo from './backups.repo.js';
import type { Backup, BackupConfigUpdate } from './backups.schemas.js';
import { dumpToBlob, type DumpScope } from './dump.service.js';
import { archiveCheck } from './archive-check.js';
import { ArchiveFormatError } from './archive.js';
import type { MacVerdict } from './archive-mac.js';
import { platformMigrationNames } from './platform.repo.js';
import { checkCompatible, restoreDatabase } from './restore.service.js';

/**
 * Tables (or whole schemas, as `schema.*`) whose rows a backup leaves out: the logs, its own list
 * and settings, the migrator's history, the schema-cache version.
 */
export const EXCLUDED_TABLES = [
  // Logs are operational, high-volume and in daily partitions that come and go with retention.
  'logs.*',
  'system.database_backups',
  'system.database_backup_config',
  'system.migrations',
  'system.schema_version',
];
const MAX_ARCHIVE_BYTES = Number.MAX_SAFE_INTEGER;
/** How often a restore that PostgreSQL ended to break a deadlock is run, in all. */
const RESTORE_ATTEMPTS = 3;
const DEADLOCK_DETECTED = '40P01';

/** The schemas the platform's migrations create: their rows are backed up, their structure is the platform's. */
export function platformSchemas(migrations: Deps['migrations']): string[] {
  const names = new Set(['system']);
  for (const m of migrations) {
    for (const match of m.sql.matchAll(/create\s+schema\s+(?:if\s+not\s+exists\s+)?"?([a-z_][a-z0-9_]*)"?/gi)) {
      names.add((match[1] as string).toLowerCase());
    }
  }
  return [...names];
}

/** What a backup of this server holds and how it is signed. */
export function backupScope(deps: Pick<Deps, 'blobStore' | 'migrations' | 'config' | 'hmacKeys'>): DumpScope {
  return {
    platformSchemas: platformSchemas(deps.migrations),
    excludedTables: EXCLUDED_TABLES,
    archiveKeys: deps.hmacKeys.backupArchives,
    files: deps.config.backups.includeFiles ? deps.blobStore : undefined,
  };
}

const notAnArchive = (reason: string) =>
  new AppError('VALIDATION_ERROR', `The file is not a complete Plinth backup archive: ${reason}`, {
    nextActions:
      'Nothing was stored. Upload the file exactly as GET /api/database/backups/{id}/download gave it (gzip, unchanged).',
  });
const notSigned = (verdict: MacVerdict) =>
  new AppError(
    'VALIDATION_ERROR',
    verdict === 'unsigned'
      ? 'The archive carries no signature of this project, so what it holds cannot be trusted.'
      : 'The archive was changed since it was made, or made by a server of another project (its signature does not match).',
    {
      nextActions:
        'Nothing was stored. Upload an archive downloaded, unchanged, from a server of this project (same ' +
        'PLINTH_ENCRYPTION_KEY). To import an archive you trust anyway, add ?allowUnsigned=true: its restore ' +
        'then runs only SQL that admin SQL would run and copies only into tables the archive created.',
    },
  );
const notFound = () =>
  new AppError('DATABASE_NOT_FOUND', 'Backup not found.', {
    nextActions: 'List backups with GET /api/database/backups.',
  });
const duplicate = () =>
  new AppError('DATABASE_DUPLICATE', 'A backup with this name already exists.', {
    nextActions: 'Choose another name, or rename the existing backup first.',
  });
const busy = (what: string) =>
  new AppError('DATABASE_CONSTRAINT_VIOLATION', what, { nextActions: 'Wait for it to finish, then try again.' });

function toBackup(row: repo.BackupRow): Backup {
  return {
    id: row.id,
    name: row.name,
    triggerSource: row.triggerSource,
    status: row.status,
    sizeBytes: row.sizeBytes === null ? null : Number(row.sizeBytes),
    errorMessage: row.errorMessage,
    createdAt: row.createdAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
    createdBy: row.createdBy,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    importedAt: row.importedAt?.toISOString() ?? null,
    signed: row.signed,
  };
}

/** A backup name taken by another backup is backups' own 409 (see core/pg-errors.ts). */
const uniqueName = <T>(work: () => Promise<T>): Promise<T> => withPgOverrides({ '23505': () => duplicate() }, work);

export function createBackupsService(
  deps: Pick<Deps, 'sql' | 'directSql' | 'clock' | 'blobStore' | 'migrations' | 'config' | 'hmacKeys'>,
  refreshSchema: () => Promise<unknown>,
  /** Where a dump that failed and could not even be recorded as failed (the database gone) is reported. */
  reportLostJob: (err: unknown) => void = () => {},
) {
  const scope = backupScope(deps);
  const running = new Map<string, Promise<void>>();
  let restoring = false;

  /** Dumps on `conn` (which holds the backup lock), then frees the lock and the connection. */
  async function produce(conn: ReservedSql, row: repo.BackupRow): Promise<void> {
    try {
      await dumpInto(conn, row);
    } finally {
      await repo.unlockOperation(conn).catch(() => {});
      conn.release();
    }
  }

  async function dumpInto(conn: ReservedSql, row: repo.BackupRow): Promise<void> {
    try {
      const sizeBytes = await dumpToBlob(conn, scope, deps.blobStore, row.blobId, deps.clock.now());
      await repo.finishBackup(deps.sql, row.id, { status: 'completed', sizeBytes, at: deps.clock.now() });
      if (row.triggerSource === 'scheduled')
        await config.applyRetention(deps.sql, (await config.readBackupConfig(deps.sql)).retentionDays);
    } catch (err) {
      await deps.blobStore.remove(row.blobId).catch(() => {});
      await repo.finishBackup(deps.sql, row.id, {
        status: 'failed',
        errorMessage: (err as Error).message,
        at: deps.clock.now(),
      });
    }
  }

  /**
   * A job whose row is already final is only letting go of its lock and connection: a client that
   * saw it completed (or failed) must not be told another backup is running, so this waits for those.
   */
  async function settleFinishedJobs(): Promise<void> {
    for (const [id, job] of running) {
      const row = await repo.findBackup(deps.sql, id);
      if (row?.status !== 'running') await job;
    }
  }

  async function existing(id: string): Promise<repo.BackupRow> {
    const row = await repo.findBackup(deps.sql, id);
    if (!row) throw notFound();
    return row;
  }

  const service = {
    async list(): Promise<{ backups: Backup[] }> {
      // Running rows are stale only when no server holds the backup lock (checked in the update).
      await repo.failInterrupted(deps.sql, [...running.keys()], deps.clock.now());
      return { backups: (await repo.listBackups(deps.sql)).map(toBackup) };
    },

    async create(
      input: { name?: string } | undefined,
      createdBy: string | null,
      triggerSource: 'manual' | 'scheduled' = 'manual',
    ): Promise<Backup> {
      if (restoring) throw busy('A restore is in progress.');
      await settleFinishedJobs();
      if (running.size > 0) throw busy('Another backup is running.');
      const id = randomUUID();
      // The lock comes first, so a running row always has its lock held (a list can tell stale ones).
      const conn = await deps.directSql.reserve();
      let row: repo.BackupRow;
      try {
        if (!(await repo.tryOperationSessionLock(conn))) throw busy('Another backup or restore is in progress.');
        row = await uniqueName(() =>
          repo.insertBackup(conn, {
            id,
            name: input?.name ?? null,
            triggerSource,
            blobId: `database-backup-${id}`,
            createdBy,
            createdAt: deps.clock.now(),
          }),
        );
      } catch (err) {
        await repo.unlockOperation(conn).catch(() => {});
        conn.release();
        throw err;
      }
      // Nobody awaits the dump but shutdown; its row stays `running` if even that failed, and a list marks it failed.
      const job = produce(conn, row)
        .catch(reportLostJob)
        .finally(() => running.delete(id));
      running.set(id, job);
      return toBackup(row);
    },

    async rename(id: string, name: string | null): Promise<Backup> {
      const row = await uniqueName(() => repo.renameBackup(deps.sql, id, name));
      if (!row) throw notFound();
      return toBackup(row);
    },

    async remove(id: string): Promise<{ message: string }> {
      const row = await existing(id);
      await settleFinishedJobs();
      if (running.has(id)) throw busy('This backup is still running.');
      await repo.deleteBackup(deps.sql, id);
      await deps.blobStore.remove(row.blobId);
      return { message: 'Backup deleted successfully' };
    },

    /**
     * Stores an uploaded archive (e.g. downloaded from another server) as a completed backup,
     * checked while it streams to the blob store: a damaged, truncated or foreign file, one from
     * other platform migrations, or one without this project's valid signature (unless
     * `allowUnsigned`: then its restore is guarded) is refused and nothing is kept.
     */
    async importArchive(
      body: Readable,
      options: { name?: string; allowUnsigned: boolean },
      createdBy: string | null,
    ): Promise<Backup> {
      const { name } = options;
      if (name !== undefined && (await repo.backupNamed(deps.sql, name))) throw duplicate();
      const here = await platformMigrationNames(deps.sql);
      const check = archiveCheck({
        keys: deps.hmacKeys.backupArchives,
        accept: (header) => checkCompatible(header, here),
        acceptSignature: (verdict) => {
          if (verdict !== 'valid' && !options.allowUnsigned) throw notSigned(verdict);
        },
      });
      // Piped, not pipelined: a refusal must not tear the request down before the answer is sent.
      body.pipe(check.tap);
      finished(body, (err) => err && check.tap.destroy(err));
      const id = randomUUID();
      const blobId = `database-backup-${id}`;
      let staged: { size: number };
      try {
        staged = await deps.blobStore.stage(blobId, check.tap, MAX_ARCHIVE_BYTES);
      } catch (err) {
        if (err instanceof ArchiveFormatError) throw notAnArchive(err.message);
        throw err;
      }
      const header = await check.header;
      await deps.blobStore.promote(blobId);
      try {
        const row = await uniqueName(() =>
          repo.insertImportedBackup(deps.sql, {
            id,
            name: name ?? null,
            blobId,
            sizeBytes: staged.size,
            createdBy,
            createdAt: new Date(header.createdAt),
            importedAt: deps.clock.now(),
            signed: header.signed,
          }),
        );
        return toBackup(row);
      } catch (err) {
        await deps.blobStore.remove(blobId).catch(() => {});
        throw err;
      }
    },

    /** The archive's bytes (gzip), for download. */
    async download(id: string): Promise<{ stream: Readable; fileName: string; size: number | null }> {
      const row = await existing(id);
      const stream = row.status === 'completed' ? await deps.blobStore.read(row.blobId) : null;
      if (!stream) throw notCompleted();
      const fileName = `plinth-backup-${row.createdAt.toISOString().replace(/[:.]/g, '-')}.gz`;
      return { stream, fileName, size: row.sizeBytes === null ? null : Number(row.sizeBytes) };
    },

    async restore(id: string): Promise<{ message: string }> {
      const row = await existing(id);
      if (row.status !== 'completed') throw notCompleted();
      await settleFinishedJobs();
      if (restoring || running.size > 0) throw busy('Another backup or restore is in progress.');
      restoring = true;
      try {
        // Chosen by PostgreSQL to end a deadlock (with a transaction that took a table the restore
        // empties), the restore was rolled back whole: it runs again from the archive's start.
        for (let attempt = 1; ; attempt++) {
          const blob = await deps.blobStore.read(row.blobId);
          if (!blob) throw notCompleted();
          try {
            const gunzip = createGunzip();
            blob.on('error', (err) => gunzip.destroy(err));
            // The archive reader surfaces a damaged archive (it reads the stream's stored error); this
            // keeps an error raised before the reader starts from being an uncaught one.
            gunzip.on('error', () => {});
            await restoreDatabase(deps.sql, scope, blob.pipe(gunzip), { signed: row.signed });
            break;
          } catch (err) {
            if (attempt >= RESTORE_ATTEMPTS || asPgError(err)?.code !== DEADLOCK_DETECTED) throw err;
          } finally {
            blob.destroy();
          }
        }
      } finally {
        restoring = false;
      }
      await refreshSchema();
      return { message: 'Database restored successfully' };
    },

    /** Waits for the dumps this process is running (shutdown, tests). */
    async settled(): Promise<void> {
      await Promise.allSettled([...running.values()]);
    },

    async config() {
      return configView(await config.readBackupConfig(deps.sql));
    },

    async updateConfig(update: BackupConfigUpdate) {
      const current = await config.readBackupConfig(deps.sql);
      const next = { ...current, ...update.backup };
      const firstDue = nextBackupTime(next.cronSchedule, deps.clock.now()); // validates even when disabled
      const nextBackupAt = next.enabled ? firstDue : null;
      const written = await config.writeBackupConfig(deps.sql, { ...next, nextBackupAt });
      await config.applyRetention(deps.sql, written.retentionDays);
      return configView(written);
    },

    /**
     * One scheduler step at the clock's time: starts the scheduled backup if one is due (claimed
     * in PostgreSQL, so one server takes each due time) and deletes backups past their retention.
     */
    async tick(): Promise<void> {
      const now = deps.clock.now();
      for (const blobId of await config.deleteExpiredBackups(deps.sql, now)) await deps.blobStore.remove(blobId);
      const due = await deps.sql.begin(async (tx) => {
        const claimed = await config.claimDueBackup(tx, now);
        if (claimed) await config.setNextBackupAt(tx, nextBackupTime(claimed.cronSchedule, now));
        return claimed !== undefined;
      });
      if (due && !restoring && running.size === 0) await service.create(undefined, null, 'scheduled');
    },
  };
  return service;
}

function configView(c: config.BackupConfigRow) {
  return {
    backup: {
      enabled: c.enabled,
      cronSchedule: c.cronSchedule,
      retentionDays: c.retentionDays,
      nextBackupAt: c.nextBackupAt?.toISOString() ?? null,
    },
  };
}

const notCompleted = () =>
  new AppError('DATABASE_CONSTRAINT_VIOLATION', 'This backup is not completed.', {
    nextActions: 'Wait for the backup to complete, or choose a completed one from GET /api/database/backups.',
  });

export type BackupsService = ReturnType<typeof createBackupsService>;
