// `plinth db migrations fetch`: one file per applied migration, skipping exact filenames that
// exist already (a local file is never overwritten) and remote names that could not be a file name.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { MIGRATIONS_DIR, NAME, VERSION } from '../migration-files.js';
import type { CommandContext } from '../command-context.js';
import { emit, say } from '../output.js';

export function registerFetch(migrations: Command, ctx: CommandContext): void {
  migrations
    .command('fetch')
    .description('write the applied migrations into migrations/')
    .action(async () => {
      const history = await (await ctx.api()).history();
      const dir = path.join(ctx.cwd, MIGRATIONS_DIR);
      await mkdir(dir, { recursive: true });
      let written = 0;
      let skipped = 0;
      for (const m of [...history].reverse()) {
        const filename = `${m.version}_${m.name}.sql`;
        if (!VERSION.test(m.version)) {
          say(
            ctx,
            `Skipped version ${JSON.stringify(m.version)} (${JSON.stringify(m.name)}): not a 14-digit timestamp version, so it cannot be a local file.`,
          );
          skipped++;
        } else if (!NAME.test(m.name)) {
          // The name becomes part of a path: a server must not steer a write outside migrations/.
          say(
            ctx,
            `Skipped version ${m.version} (${JSON.stringify(m.name)}): not a valid migration name (lowercase letters, digits, hyphens), so it cannot be a local file.`,
          );
          skipped++;
        } else if (existsSync(path.join(dir, filename))) {
          say(ctx, `Skipped ${MIGRATIONS_DIR}/${filename} (exists)`);
          skipped++;
        } else {
          await writeFile(path.join(dir, filename), `${m.statements.join(';\n\n')};\n`, { flag: 'wx' });
          say(ctx, `Wrote ${MIGRATIONS_DIR}/${filename}`);
          written++;
        }
      }
      emit(ctx, { fetched: history.length, written, skipped }, () => [
        `Fetched ${history.length} applied migration${history.length === 1 ? '' : 's'}: ${written} written, ${skipped} skipped.`,
      ]);
    });
}
