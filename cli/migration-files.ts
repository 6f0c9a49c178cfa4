// The local migrations/ directory: files named <14-digit UTC version YYYYMMDDHHmmss>_<name>.sql,
// names of lowercase letters, digits and hyphens. Reads the directory, checks names, versions
// and contents, and makes the next version.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { splitStatements } from '../src/modules/database/sql-guard.js';
import { CliError } from './cli-error.js';

export const MIGRATIONS_DIR = 'migrations';
export const FILE_NAME = /^(\d{14})_([a-z0-9-]+)\.sql$/;
export const NAME = /^[a-z0-9-]+$/;
export const VERSION = /^\d{14}$/;
const NAMING_RULE = 'Names must be <14-digit UTC version YYYYMMDDHHmmss>_<lowercase letters, digits, hyphens>.sql.';

export interface LocalMigration {
  filename: string;
  version: string;
  name: string;
  path: string;
}

export interface LocalDirectory {
  dir: string;
  /** Well-named files, by version (oldest first). */
  files: LocalMigration[];
  /** Files whose names break the convention. */
  invalid: string[];
}

/** A real UTC timestamp YYYYMMDDHHmmss. */
export function isTimestampVersion(version: string): boolean {
  if (!VERSION.test(version)) return false;
  const date = versionDate(version);
  return !Number.isNaN(date.getTime()) && formatVersion(date) === version;
}

const versionDate = (v: string) =>
  new Date(
    Date.UTC(+v.slice(0, 4), +v.slice(4, 6) - 1, +v.slice(6, 8), +v.slice(8, 10), +v.slice(10, 12), +v.slice(12, 14)),
  );

export const formatVersion = (d: Date) => d.toISOString().replace(/[-:T]/g, '').slice(0, 14);

/** The version for a new file: now (UTC), or one second after the newest local file if that is later. */
export function nextVersion(now: Date, files: LocalMigration[]): string {
  const newest = files.at(-1);
  const after = newest ? new Date(versionDate(newest.version).getTime() + 1000) : now;
  return formatVersion(after > now ? after : now);
}

export function parseFilename(filename: string): { version: string; name: string } | undefined {
  const match = FILE_NAME.exec(filename);
  if (!match || !isTimestampVersion(match[1]!)) return undefined;
  return { version: match[1]!, name: match[2]! };
}

export async function readLocalDirectory(projectDir: string): Promise<LocalDirectory> {
  const dir = path.join(projectDir, MIGRATIONS_DIR);
  if (!existsSync(dir)) return { dir, files: [], invalid: [] };
  const entries = await readdir(dir, { withFileTypes: true });
  const files: LocalMigration[] = [];
  const invalid: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.') || entry.isDirectory()) continue;
    const parsed = parseFilename(entry.name);
    if (parsed) files.push({ filename: entry.name, ...parsed, path: path.join(dir, entry.name) });
    else invalid.push(entry.name);
  }
  files.sort((a, b) => a.version.localeCompare(b.version) || a.filename.localeCompare(b.filename));
  return { dir, files, invalid: invalid.sort() };
}

/** Refuses a directory with badly named files or two files of one version. */
export function assertDirectoryValid(local: LocalDirectory): void {
  if (local.invalid.length > 0) {
    throw new CliError(
      `Invalid migration file name${local.invalid.length > 1 ? 's' : ''} in ${MIGRATIONS_DIR}/: ${local.invalid.join(', ')}. ${NAMING_RULE} Rename or remove ${local.invalid.length > 1 ? 'them' : 'it'}.`,
    );
  }
  for (let i = 1; i < local.files.length; i++) {
    const [a, b] = [local.files[i - 1]!, local.files[i]!];
    if (a.version === b.version) {
      throw new CliError(
        `Two migration files share version ${a.version}: ${a.filename} and ${b.filename}. Give one of them a new version.`,
      );
    }
  }
}

/** The SQL of a file; refuses an empty file (no statements) and one that does not parse. */
export async function readMigrationSql(file: LocalMigration): Promise<string> {
  const sql = await readFile(file.path, 'utf8');
  let count: number;
  try {
    count = (await splitStatements(sql)).length;
  } catch (err) {
    throw new CliError(
      `${MIGRATIONS_DIR}/${file.filename}: ${(err as Error).message} Fix the file and run the command again.`,
    );
  }
  if (count === 0)
    throw new CliError(
      `${MIGRATIONS_DIR}/${file.filename} is empty (no SQL statements). Write the migration's SQL in it first.`,
    );
  return sql;
}

/** A target given as a version or a file name (a path to the file is accepted too). */
export function parseTarget(target: string): { version: string; filename?: string } {
  const base = path.basename(target);
  if (VERSION.test(base)) {
    if (!isTimestampVersion(base))
      throw new CliError(`"${target}" is not a valid version: expected a UTC timestamp YYYYMMDDHHmmss.`);
    return { version: base };
  }
  const parsed = parseFilename(base);
  if (!parsed)
    throw new CliError(`"${target}" is neither a 14-digit version nor a migration file name. ${NAMING_RULE}`);
  return { version: parsed.version, filename: base };
}

/** The local file a target names; refuses a missing file and an ambiguous version. */
export function findTarget(local: LocalDirectory, target: string): LocalMigration {
  const { version, filename } = parseTarget(target);
  const matches = local.files.filter((f) => (filename ? f.filename === filename : f.version === version));
  if (matches.length === 0) {
    throw new CliError(
      `No local migration ${filename ?? version} in ${MIGRATIONS_DIR}/. Run \`plinth db migrations list\` to see local and applied migrations.`,
    );
  }
  const sameVersion = local.files.filter((f) => f.version === version);
  if (sameVersion.length > 1) {
    throw new CliError(
      `Two migration files share version ${version}: ${sameVersion.map((f) => f.filename).join(' and ')}. Give one of them a new version.`,
    );
  }
  return matches[0]!;
}
