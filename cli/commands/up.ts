// `plinth db migrations up <target>` applies exactly that file (the next pending one);
// `--to <target>` and `--all` validate the whole directory first, then apply pending files in order.
import type { Command } from 'commander';
import type { ApiClient } from '../api-client.js';
import { CliError } from '../cli-error.js';
import { assertApplicable, assertNoStranded, makePlan } from '../migration-plan.js';
import {
  assertDirectoryValid,
  findTarget,
  MIGRATIONS_DIR,
  readLocalDirectory,
  readMigrationSql,
  type LocalDirectory,
  type LocalMigration,
} from '../migration-files.js';
import type { CommandContext } from '../command-context.js';
import { emit, say } from '../output.js';

async function applyFile(api: ApiClient, file: LocalMigration, sql: string): Promise<void> {
  try {
    await api.apply({ version: file.version, name: file.name, sql });
  } catch (err) {
    if (err instanceof CliError)
      throw new CliError(`Applying ${MIGRATIONS_DIR}/${file.filename} failed: ${err.message}`);
    throw err;
  }
}

/** Validates the whole directory, then applies the pending files (up to `to`) in order; answers their names. */
export async function applyPending(
  ctx: CommandContext,
  api: ApiClient,
  local: LocalDirectory,
  to?: string,
): Promise<string[]> {
  assertDirectoryValid(local);
  const plan = makePlan(local.files, await api.history());
  assertNoStranded(plan, local.files);
  let batch = plan.pending;
  if (to !== undefined) {
    const last = findTarget(local, to);
    assertApplicable(plan, last);
    batch = plan.pending.filter((f) => BigInt(f.version) <= BigInt(last.version));
  }
  const sqls = [];
  for (const file of batch) sqls.push(await readMigrationSql(file));
  for (const [i, file] of batch.entries()) {
    say(ctx, `[${i + 1}/${batch.length}] Applying ${MIGRATIONS_DIR}/${file.filename}`);
    await applyFile(api, file, sqls[i]!);
  }
  return batch.map((f) => f.filename);
}

export function registerUp(migrations: Command, ctx: CommandContext): void {
  migrations
    .command('up')
    .description('apply one migration, all pending ones up to a target (--to), or all pending (--all)')
    .argument('[target]', 'a version (YYYYMMDDHHmmss) or file name: apply exactly this one, the next pending')
    .option('--to <target>', 'apply pending migrations up to and including this one')
    .option('--all', 'apply all pending migrations')
    .action(async (target: string | undefined, options: { to?: string; all?: boolean }) => {
      const modes = [target !== undefined, options.to !== undefined, options.all === true].filter(Boolean).length;
      if (modes !== 1)
        throw new CliError(
          'Give exactly one of: a target (`up <version-or-filename>`), `--to <version-or-filename>`, or `--all`.',
        );
      const local = await readLocalDirectory(ctx.cwd);

      if (target !== undefined) {
        // One file: only the target must be valid; unrelated files may be anything.
        const file = findTarget(local, target);
        const sql = await readMigrationSql(file);
        const api = await ctx.api();
        const plan = makePlan(local.files, await api.history());
        assertApplicable(plan, file);
        const next = plan.pending[0];
        if (next && next.version !== file.version) {
          throw new CliError(
            `Migration ${file.filename} is not the next pending local migration; apply ${next.filename} first (or use \`up --to ${file.filename}\`).`,
          );
        }
        await applyFile(api, file, sql);
        emit(ctx, { applied: [file.filename] }, () => [`Applied ${MIGRATIONS_DIR}/${file.filename}`]);
        return;
      }

      const applied = await applyPending(ctx, await ctx.api(), local, options.to);
      emit(ctx, { applied }, () => [
        applied.length === 0
          ? 'Nothing to apply: every local migration is applied.'
          : `Applied ${applied.length} migration${applied.length === 1 ? '' : 's'}.`,
      ]);
    });
}
