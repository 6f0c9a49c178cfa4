// `plinth backup create|list|restore`: database backups of the server (pg_dump snapshots it keeps).
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { confirm } from '../confirm.js';
import type { CommandContext } from '../main.js';
import { emit, objectTable, say } from '../output.js';

interface Backup {
  id: string;
  name: string | null;
  status: 'running' | 'completed' | 'failed';
  sizeBytes: number | null;
  errorMessage: string | null;
  createdAt: string;
}

const POLL_MS = 500;

export function registerBackup(program: Command, ctx: CommandContext): void {
  const backup = program.command('backup').description('database backups: create, list, restore');

  backup
    .command('create')
    .description('take a backup and wait until it is stored (--no-wait to return at once)')
    .option('--name <name>', 'a name for the backup')
    .option('--no-wait', 'return as soon as the backup has started')
    .action(async (options: { name?: string; wait: boolean }) => {
      const api = await ctx.api();
      let item = await api.call<Backup>('POST', '/api/database/backups', {
        json: options.name ? { name: options.name } : {},
      });
      say(ctx, `Backup ${item.id} started…`);
      while (options.wait && item.status === 'running') {
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        const { backups } = await api.call<{ backups: Backup[] }>('GET', '/api/database/backups');
        item = backups.find((b) => b.id === item.id) ?? item;
      }
      if (item.status === 'failed')
        throw new CliError(`Backup ${item.id} failed: ${item.errorMessage ?? 'no reason given'}`);
      emit(ctx, item, () => [
        `Backup ${item.id} ${item.status}${item.sizeBytes !== null ? ` (${item.sizeBytes} bytes)` : ''}.`,
      ]);
    });

  backup
    .command('list')
    .description('list the backups, newest first')
    .action(async () => {
      const { backups } = await (await ctx.api()).call<{ backups: Backup[] }>('GET', '/api/database/backups');
      emit(ctx, backups, () =>
        backups.length === 0
          ? ['No backups. Take one with `plinth backup create`.']
          : objectTable(backups as unknown as Record<string, unknown>[], [
              'id',
              'name',
              'status',
              'sizeBytes',
              'createdAt',
            ]),
      );
    });

  backup
    .command('restore')
    .description('replace the database with a backup (confirmed; --yes skips the question)')
    .argument('<id>', 'the backup id (see `plinth backup list`)')
    .option('-y, --yes', 'do not ask for confirmation')
    .action(async (id: string, options: { yes?: boolean }) => {
      const api = await ctx.api();
      await confirm(ctx, `Restoring backup ${id} replaces every table of ${api.url}`, 'restore', options.yes);
      const answer = await api.call<{ message: string }>(
        'POST',
        `/api/database/backups/${encodeURIComponent(id)}/restore`,
      );
      emit(ctx, { id, ...answer }, () => [answer.message]);
    });
}
