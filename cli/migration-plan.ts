// Local files against the applied history: which are applied, pending, stranded (older than the
// latest applied but never applied) or remote-only, and the ordering rules `up` enforces.
import type { AppliedMigration } from '../src/modules/migrations/migrations.schemas.js';
import { CliError } from './cli-error.js';
import { MIGRATIONS_DIR, type LocalMigration } from './migration-files.js';

export type LocalStatus = 'applied' | 'pending' | 'stranded';

export interface Plan {
  latest?: string;
  applied: Map<string, AppliedMigration>;
  statusOf(file: LocalMigration): LocalStatus;
  /** Local files newer than the latest applied, oldest first. */
  pending: LocalMigration[];
  /** Applied migrations without a local file. */
  remoteOnly: AppliedMigration[];
}

const newer = (a: string, b: string) => BigInt(a) > BigInt(b);

export function makePlan(files: LocalMigration[], history: AppliedMigration[]): Plan {
  const applied = new Map(history.map((m) => [m.version, m]));
  const latest = history.reduce<string | undefined>(
    (max, m) => (max === undefined || newer(m.version, max) ? m.version : max),
    undefined,
  );
  const statusOf = (f: LocalMigration): LocalStatus =>
    applied.has(f.version) ? 'applied' : latest === undefined || newer(f.version, latest) ? 'pending' : 'stranded';
  const local = new Set(files.map((f) => f.version));
  return {
    latest,
    applied,
    statusOf,
    pending: files.filter((f) => statusOf(f) === 'pending'),
    remoteOnly: history.filter((m) => !local.has(m.version)).sort((a, b) => (newer(a.version, b.version) ? 1 : -1)),
  };
}

/** Refuses a target that is applied already or older than the latest applied migration. */
export function assertApplicable(plan: Plan, file: LocalMigration): void {
  const status = plan.statusOf(file);
  if (status === 'applied') {
    throw new CliError(
      `Migration ${file.filename} is already applied remotely. Applied migrations are never edited: create a new one with \`plinth db migrations new <name>\`.`,
    );
  }
  if (status === 'stranded') {
    throw new CliError(
      `Migration ${file.filename} is older than the latest applied migration ${plan.latest}; it can no longer be applied. Create a new migration with \`plinth db migrations new <name>\` instead.`,
    );
  }
}

/** Refuses a directory holding never-applied files older than the latest applied migration. */
export function assertNoStranded(plan: Plan, files: LocalMigration[]): void {
  const stranded = files.filter((f) => plan.statusOf(f) === 'stranded');
  if (stranded.length > 0) {
    throw new CliError(
      `${stranded.map((f) => `${MIGRATIONS_DIR}/${f.filename}`).join(', ')} ${stranded.length > 1 ? 'are' : 'is'} older than the latest applied migration ${plan.latest} but never applied. Move ${stranded.length > 1 ? 'their' : 'its'} SQL to a new migration (\`plinth db migrations new <name>\`) and delete ${stranded.length > 1 ? 'them' : 'it'}.`,
    );
  }
}
