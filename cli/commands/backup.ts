// `plinth backup create|list|restore|download|upload`: database backups of the server (snapshots it
// keeps in its blob store); download and upload move an archive between servers.
import type { Command } from 'commander';
import { CliError } from '../cli-error.js';
import { confirm } from '../confirm.js';
import type { CommandContext } from '../command-context.js';
import { emit, objectTable, say } from '../output.js';
import { saveBody, sendFile } from '../transfer.js';

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
  const backup = program.command('backup').description('database backups: create, list, restore, download, upload');

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

  backup
    .command('download')
    .description('save a backup archive to a file (to upload to another server)')
    .argument('<id>', 'the backup id (see `plinth backup list`)')
    .argument('[file]', 'where to save it (default: the name the server gives)')
    .action(async (id: string, name: string | undefined) => {
      const res = await (await ctx.api()).send('GET', `/api/database/backups/${encodeURIComponent(id)}/download`);
      const given = /filename="([^"/\\]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1];
      const target = name ?? given ?? `plinth-backup-${id}.gz`;
      const { file, size } = await saveBody(ctx, res, target);
      emit(ctx, { id, file, size }, () => [`Downloaded backup ${id} to ${target} (${size} bytes).`]);
    });

  backup
    .command('upload')
    .description('upload a backup archive (e.g. downloaded from another server); restore it with `backup restore`')
    .argument('<file>', 'the archive, as `plinth backup download` saved it')
    .option('--name <name>', 'a name for the backup')
    .option(
      '--allow-unsigned',
      "store an archive without this project's signature; its restore then runs only what admin SQL may run",
    )
    .action(async (file: string, options: { name?: string; allowUnsigned?: boolean }) => {
      const { answer: item, size } = await sendFile<Backup>(ctx, await ctx.api(), {
        method: 'POST',
        path: '/api/database/backups/import',
        name: file,
        contentType: 'application/gzip',
        query: { name: options.name, allowUnsigned: options.allowUnsigned ? 'true' : undefined },
      });
      emit(ctx, item, () => [
        `Uploaded ${file} as backup ${item.id} (${size} bytes). Restore it with \`plinth backup restore ${item.id}\`.`,
      ]);
    });
}
