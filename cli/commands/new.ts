// `plinth db migrations new <name>`: an empty migration file with the next 14-digit UTC version,
// refused while the directory holds badly named files or two files of one version.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { assertDirectoryValid, MIGRATIONS_DIR, NAME, nextVersion, readLocalDirectory } from '../migration-files.js';
import type { CommandContext } from '../command-context.js';
import { emit } from '../output.js';

export function registerNew(migrations: Command, ctx: CommandContext): void {
  migrations
    .command('new')
    .description('create migrations/<YYYYMMDDHHmmss>_<name>.sql')
    .argument('<name>', 'lowercase letters, digits and hyphens')
    .action(async (name: string) => {
      if (!NAME.test(name)) {
        throw new CliError(
          `"${name}" is not a valid migration name: use lowercase letters, digits and hyphens only (e.g. add-orders-table).`,
        );
      }
      const local = await readLocalDirectory(ctx.cwd);
      assertDirectoryValid(local);
      const filename = `${nextVersion(ctx.now(), local.files)}_${name}.sql`;
      await mkdir(local.dir, { recursive: true });
      await writeFile(
        path.join(local.dir, filename),
        `-- ${name}\n-- Forward-only: once applied, this file is never edited; write a new migration instead.\n`,
        { flag: 'wx' },
      );
      emit(ctx, { created: `${MIGRATIONS_DIR}/${filename}` }, () => [`Created ${MIGRATIONS_DIR}/${filename}`]);
    });
}
