// `plinth secrets list|set|unset`: the project's secrets (values are never listed).
import type { Command } from 'commander';
import type { CliError } from '../cli-error.js';
import type { CommandContext } from '../main.js';
import { emit, objectTable } from '../output.js';

export function registerSecrets(program: Command, ctx: CommandContext): void {
  const secrets = program.command('secrets').description('project secrets: list, set, unset');

  secrets
    .command('list')
    .description('list the secrets (keys and metadata, never values)')
    .action(async () => {
      const { secrets: list } = await (await ctx.api()).call<{ secrets: Record<string, unknown>[] }>(
        'GET',
        '/api/secrets',
      );
      emit(ctx, list, () =>
        list.length === 0 ? ['No secrets.'] : objectTable(list, ['key', 'isActive', 'expiresAt', 'updatedAt']),
      );
    });

  secrets
    .command('set')
    .description('create a secret, or replace its value')
    .argument('<key>', 'A-Z, 0-9 and _')
    .argument('<value>')
    .action(async (key: string, value: string) => {
      const api = await ctx.api();
      const answer = await api
        .call<{ message: string }>('POST', '/api/secrets', { json: { key, value } })
        .catch((err: CliError) => {
          if (err.extra?.status !== 409) throw err;
          return api.call<{ message: string }>('PUT', `/api/secrets/${encodeURIComponent(key)}`, {
            json: { value, isActive: true },
          });
        });
      emit(ctx, { key, ...answer }, () => [answer.message]);
    });

  secrets
    .command('unset')
    .description('delete a secret')
    .argument('<key>')
    .action(async (key: string) => {
      const answer = await (await ctx.api()).call<{ message: string }>(
        'DELETE',
        `/api/secrets/${encodeURIComponent(key)}`,
      );
      emit(ctx, { key, ...answer }, () => [answer.message]);
    });
}
