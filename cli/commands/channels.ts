// `plinth channels list|create|update|delete`: the realtime channel patterns sockets may subscribe
// to (admin routes /api/realtime/channels). A channel is named by its id or its exact pattern.
import type { Command } from 'commander';
import { CliError, oneLine } from '../cli-error.js';
import type { CommandContext } from '../command-context.js';
import type { ApiClient } from '../api-client.js';
import { emit, objectTable } from '../output.js';
import type { Channel } from '../../src/modules/realtime/realtime.schemas.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The channel an argument names: its id, or the channel with exactly that pattern. */
async function channelOf(api: ApiClient, given: string): Promise<Channel> {
  const channels = await api.call<Channel[]>('GET', '/api/realtime/channels');
  const found = channels.find((c) => (UUID.test(given) ? c.id === given : c.pattern === given));
  if (!found) {
    const hint = 'List them with `plinth channels list` and give a pattern or an id from it.';
    throw new CliError(oneLine(`No channel pattern is "${given}".`, hint), { nextActions: hint });
  }
  return found;
}

const row = (c: Channel) => ({
  id: c.id,
  pattern: c.pattern,
  enabled: c.enabled,
  description: c.description,
  webhooks: c.webhookUrls?.length ? c.webhookUrls.join(' ') : null,
});

export function registerChannels(program: Command, ctx: CommandContext): void {
  const channels = program
    .command('channels')
    .description(
      'realtime channel patterns (SQL LIKE, % wildcard) sockets may subscribe to: list, create, update, delete',
    );

  channels
    .command('list')
    .description('list the channel patterns')
    .action(async () => {
      const list = await (await ctx.api()).call<Channel[]>('GET', '/api/realtime/channels');
      emit(ctx, list, () =>
        list.length === 0
          ? ['No channels: sockets can subscribe to nothing yet. Open some with `plinth channels create "chat:%"`.']
          : objectTable(list.map(row)),
      );
    });

  channels
    .command('create')
    .description('open the channels matching a pattern (e.g. "order:%" or "news")')
    .argument('<pattern>', 'letters, digits, - and : separated parts; % matches anything')
    .option('--description <text>', 'what the channels are for')
    .option('--webhook <url>', 'POST every message on them to this URL (repeatable)', collect)
    .option('--disabled', 'create it disabled')
    .action(async (pattern: string, options: { description?: string; webhook?: string[]; disabled?: boolean }) => {
      const channel = await (await ctx.api()).call<Channel>('POST', '/api/realtime/channels', {
        json: {
          pattern,
          ...(options.description !== undefined ? { description: options.description } : {}),
          ...(options.webhook ? { webhookUrls: options.webhook } : {}),
          ...(options.disabled ? { enabled: false } : {}),
        },
      });
      emit(ctx, channel, () => [
        `Created channel ${channel.pattern} (${channel.id})${channel.enabled ? '' : ', disabled'}`,
      ]);
    });

  channels
    .command('update')
    .description('change a channel pattern (what is not given stays)')
    .argument('<channel>', 'its id or its exact pattern')
    .option('--pattern <pattern>', 'a new pattern')
    .option('--description <text>', 'a new description')
    .option('--webhook <url>', 'the webhook URLs, replacing the old ones (repeatable)', collect)
    .option('--no-webhooks', 'remove every webhook URL')
    .option('--enable', 'enable it')
    .option('--disable', 'disable it: what is published after is not delivered')
    .action(
      async (
        given: string,
        options: {
          pattern?: string;
          description?: string;
          webhook?: string[];
          webhooks?: boolean;
          enable?: boolean;
          disable?: boolean;
        },
      ) => {
        if (options.enable && options.disable) throw new CliError('Give --enable or --disable, not both.');
        const changes = {
          ...(options.pattern !== undefined ? { pattern: options.pattern } : {}),
          ...(options.description !== undefined ? { description: options.description } : {}),
          ...(options.webhook
            ? { webhookUrls: options.webhook }
            : options.webhooks === false
              ? { webhookUrls: [] }
              : {}),
          ...(options.enable ? { enabled: true } : options.disable ? { enabled: false } : {}),
        };
        if (Object.keys(changes).length === 0)
          throw new CliError('Nothing to change: give an option (`plinth channels update --help` lists them).');
        const api = await ctx.api();
        const { id } = await channelOf(api, given);
        const channel = await api.call<Channel>('PUT', `/api/realtime/channels/${id}`, { json: changes });
        emit(ctx, channel, () => [
          `Updated channel ${channel.pattern} (${channel.id})${channel.enabled ? '' : ', disabled'}`,
        ]);
      },
    );

  channels
    .command('delete')
    .description('delete a channel pattern (stored messages keep their channel name)')
    .argument('<channel>', 'its id or its exact pattern')
    .action(async (given: string) => {
      const api = await ctx.api();
      const channel = await channelOf(api, given);
      const answer = await api.call<{ message: string }>('DELETE', `/api/realtime/channels/${channel.id}`);
      emit(ctx, { id: channel.id, pattern: channel.pattern, ...answer }, () => [
        `${answer.message}: ${channel.pattern} (${channel.id})`,
      ]);
    });
}
