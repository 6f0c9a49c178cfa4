// `plinth upgrade check`: which platform migrations of this Plinth version (its db/migrations, or
// --dir) the server's database has not applied, i.e. what starting this version would apply (after
// its automatic backup). Run it from the new version's folder before restarting (docs/upgrading.md).
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import type { CommandContext } from '../command-context.js';
import { emit } from '../output.js';

/** db/migrations of the Plinth install this tool belongs to (cli/commands/ in development, cli/dist/ built). */
const bundledDir = () => fileURLToPath(new URL('../../db/migrations/', import.meta.url));
const PLATFORM_MIGRATION = /^\d{14}_[a-z0-9_-]+\.sql$/;

async function platformMigrationNames(dir: string): Promise<string[]> {
  if (!existsSync(dir))
    throw new CliError(`No platform migrations at ${dir}.`, {
      nextActions: "Run the command from the new Plinth version's folder, or point --dir at its db/migrations.",
    });
  return (await readdir(dir)).filter((n) => PLATFORM_MIGRATION.test(n)).sort();
}

export function registerUpgrade(program: Command, ctx: CommandContext): void {
  const upgrade = program.command('upgrade').description('upgrading the Plinth server (docs/upgrading.md)');
  upgrade
    .command('check')
    .description("list the platform migrations this Plinth version would apply to the server's database")
    .option('--dir <path>', "the version's platform migrations (default: this Plinth's db/migrations)")
    .action(async (options: { dir?: string }) => {
      const dir = options.dir ? path.resolve(ctx.cwd, options.dir) : bundledDir();
      const files = await platformMigrationNames(dir);
      const api = await ctx.api();
      const { applied } = await api.call<{ applied: string[] }>('GET', '/api/health/platform-migrations');
      const done = new Set(applied);
      const known = new Set(files);
      const pending = files.filter((name) => !done.has(name));
      // Applied by a newer version: this one is older than the database (going back needs a restore).
      const newerThanThisVersion = applied.filter((name) => !known.has(name));
      const answer = { server: api.url, migrationsDir: dir, applied: applied.length, pending, newerThanThisVersion };
      emit(ctx, answer, () => {
        const lines =
          pending.length === 0
            ? [`Up to date: ${api.url} has every platform migration of this version (${files.length}).`]
            : [
                `${pending.length} platform migration${pending.length === 1 ? '' : 's'} pending on ${api.url}:`,
                ...pending.map((name) => `  ${name}`),
                'Starting this version applies them in one transaction, after a backup of the database (UPGRADE_BACKUP=auto).',
              ];
        if (newerThanThisVersion.length > 0)
          lines.push(
            `The database has ${newerThanThisVersion.length} platform migration(s) this version does not know (${newerThanThisVersion.join(', ')}): it was upgraded past this version; going back needs the backup taken before that upgrade (docs/upgrading.md).`,
          );
        return lines;
      });
    });
}
