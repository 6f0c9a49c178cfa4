// Applying the platform's migrations at start, as an upgrade: on a database that has data and
// pending migrations, a backup first (UPGRADE_BACKUP=auto), then every pending migration in one
// transaction. When one fails nothing was changed, and the server does not start: the error says
// which migration failed, which backup was taken and how to go back (docs/upgrading.md).
import { appliedMigrationNames, migrate, MigrationFailedError, type MigrationFile } from './core/migrator.js';
import type { Sql } from './core/db.js';

/** A start refused by the upgrade step; its message is the whole story for the operator. */
export class UpgradeFailedError extends Error {}

export interface UpgradeBackupInfo {
  id: string;
  name: string;
  location: string;
  /** Listed among the server's backups (restorable by id). */
  listed: boolean;
}

export interface UpgradeOptions {
  mode: 'auto' | 'off';
  takeBackup(): Promise<UpgradeBackupInfo>;
  log(line: string): void;
}

export interface UpgradeOutcome {
  applied: string[];
  backup?: UpgradeBackupInfo;
}

/** The platform migrations of `files` this database has not applied (all of them on a new database). */
export async function pendingPlatformMigrations(sql: Sql, files: MigrationFile[]): Promise<string[]> {
  const applied = new Set((await appliedMigrationNames(sql)) ?? []);
  return files.filter((f) => !applied.has(f.name)).map((f) => f.name);
}

export async function upgradeSystemSchema(
  sql: Sql,
  files: MigrationFile[],
  options: UpgradeOptions,
): Promise<UpgradeOutcome> {
  const applied = await appliedMigrationNames(sql);
  const done = new Set(applied ?? []);
  const pending = files.filter((f) => !done.has(f.name)).map((f) => f.name);
  // A database that some Plinth has migrated holds a project (at least its keys); a new one has nothing to keep.
  const hasData = applied !== null && applied.length > 0;
  let backup: UpgradeBackupInfo | undefined;
  if (pending.length > 0 && hasData) {
    const list = summary(pending);
    if (options.mode === 'off') {
      options.log(`Upgrade: applying ${list} without a backup (UPGRADE_BACKUP=off).`);
    } else {
      options.log(
        `Upgrade: ${list} pending; backing up the database before applying ${pending.length === 1 ? 'it' : 'them'}.`,
      );
      backup = await options.takeBackup().catch((err: unknown) => {
        throw new UpgradeFailedError(
          [
            `Plinth did not start: the backup before the upgrade failed: ${(err as Error).message}`,
            'No platform migration was applied: the database is as it was.',
            'Fix the cause and start again, or take a backup yourself and start with UPGRADE_BACKUP=off (docs/upgrading.md).',
          ].join('\n'),
          { cause: err },
        );
      });
      options.log(
        `Upgrade: backup ${backup.name} (id ${backup.id}) taken before the upgrade, stored at ${backup.location}`,
      );
    }
  }
  try {
    const now = await migrate(sql, files);
    if (now.length > 0 && hasData) options.log(`Upgrade: applied ${summary(now)}.`);
    return { applied: now, backup };
  } catch (err) {
    if (err instanceof MigrationFailedError) throw new UpgradeFailedError(failureMessage(err, backup), { cause: err });
    throw err;
  }
}

const summary = (names: string[]): string =>
  `${names.length} platform migration${names.length === 1 ? '' : 's'} (${names.join(', ')})`;

function failureMessage(err: MigrationFailedError, backup: UpgradeBackupInfo | undefined): string {
  const lines = [
    `Plinth did not start: ${err.message}`,
    'Nothing was changed: the pending platform migrations run in one transaction, which was rolled back, so the database is as it was before this start.',
  ];
  if (backup) {
    lines.push(
      `The backup taken before the attempt is ${backup.name} (id ${backup.id}), stored at ${backup.location}.`,
    );
    lines.push(
      backup.listed
        ? `To go back: start the previous Plinth version (it runs on this database as it is); to put that backup's data back there: plinth backup restore ${backup.id}`
        : `To go back: start the previous Plinth version (it runs on this database as it is); to put that backup's data back there: plinth backup upload ${backup.location}, then plinth backup restore <the id it prints>`,
    );
  } else {
    lines.push('To go back: start the previous Plinth version (it runs on this database as it is).');
  }
  lines.push('See docs/upgrading.md.');
  return lines.join('\n');
}
