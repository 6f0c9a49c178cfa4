// `plinth db migrations list`: local files and the applied history side by side.
import type { Command } from 'commander';
import { makePlan } from '../migration-plan.js';
import { readLocalDirectory } from '../migration-files.js';
import type { CommandContext } from '../command-context.js';
import { emit, formatTable } from '../output.js';

const STATUS = { applied: 'applied', pending: 'pending', stranded: 'not applied (older than latest applied)' };

export function registerList(migrations: Command, ctx: CommandContext): void {
  migrations
    .command('list')
    .description('show local and applied migrations side by side')
    .action(async () => {
      const local = await readLocalDirectory(ctx.cwd);
      const history = await (await ctx.api()).history();
      const plan = makePlan(local.files, history);
      const rows: [string, string, string, string, string][] = [
        ...local.files.map((f): [string, string, string, string, string] => [
          f.version,
          f.name,
          'yes',
          plan.applied.has(f.version) ? 'yes' : 'no',
          STATUS[plan.statusOf(f)],
        ]),
        ...plan.remoteOnly.map((m): [string, string, string, string, string] => [
          m.version,
          m.name,
          'no',
          'yes',
          'remote only (run fetch)',
        ]),
      ].sort((a, b) => (BigInt(a[0]) < BigInt(b[0]) ? -1 : BigInt(a[0]) > BigInt(b[0]) ? 1 : 0));
      const json = {
        migrations: rows.map(([version, name, local, remote, status]) => ({
          version,
          name,
          local: local === 'yes',
          remote: remote === 'yes',
          status,
        })),
        invalidFiles: local.invalid,
      };
      emit(ctx, json, () => [
        ...formatTable([['VERSION', 'NAME', 'LOCAL', 'REMOTE', 'STATUS'], ...rows]),
        ...local.invalid.map((name) => `invalid file name (ignored): ${name}`),
        `${plan.pending.length} pending, ${history.length} applied, ${plan.remoteOnly.length} remote only.`,
      ]);
    });
}
