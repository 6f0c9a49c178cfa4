// `plinth secrets list|set|unset|rotate`: the project's secrets (values are never listed) and the
// rotation of the platform's keys (API key, anon key, access-token signing key) with a grace period.
import { Argument, type Command, InvalidArgumentError } from 'commander';
import type { CliError } from '../cli-error.js';
import type { CommandContext } from '../command-context.js';
import { emit, objectTable } from '../output.js';

/** What each rotatable key is called on the wire, and the field its new value comes back in. */
const ROTATABLE = {
  'api-key': { label: 'API key', field: 'apiKey' },
  'anon-key': { label: 'Anon key', field: 'anonKey' },
  'signing-key': { label: 'Signing key', field: 'keyId' },
} as const;

const graceHours = (value: string): number => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number of hours');
  return Number(value);
};

export function registerSecrets(program: Command, ctx: CommandContext): void {
  const secrets = program.command('secrets').description('project secrets: list, set, unset, rotate');

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

  secrets
    .command('rotate')
    .description('rotate the API key, the anon key or the signing key; the old one works for the grace period')
    .addArgument(new Argument('<key>', 'which key').choices(Object.keys(ROTATABLE)))
    .option('--grace-hours <hours>', 'how long the old key keeps working (0: stops at once)', graceHours)
    .action(async (key: string, options: { graceHours?: number }) => {
      const rotatable = ROTATABLE[key as keyof typeof ROTATABLE];
      const answer = await (await ctx.api()).call<Record<string, string>>('POST', `/api/secrets/${key}/rotate`, {
        json: options.graceHours === undefined ? {} : { gracePeriodHours: options.graceHours },
      });
      emit(ctx, answer, () => [
        answer.message ?? `${rotatable.label} rotated`,
        `${rotatable.field}: ${answer[rotatable.field]}`,
      ]);
    });
}
