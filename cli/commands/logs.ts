// `plinth logs tail` follows the server's live log stream (Server-Sent Events of /api/logs/stream)
// until interrupted, reconnecting (and saying so) when the server restarts; `plinth logs search`
// prints stored past entries (/api/logs/search), newest first. --json prints one JSON per line.
import { Option, type Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { CliError } from '../cli-error.js';
import { LOG_SOURCES } from '../../src/modules/logs/log-entry.js';
import { printable, printableJson } from '../../src/core/printable.js';

interface LogLine {
  timestamp: string;
  eventMessage: string;
  source: string;
}

const LEVELS = ['info', 'warn', 'error'] as const;
/** How long a lost stream waits before each new try (the server may take a while to start). */
const RECONNECT_DELAY_MS = 1_000;

/** The examples `--help` shows: each is run against a server by test/integration/cli/cli-logs.test.ts. */
export const TAIL_EXAMPLES = [
  'logs tail',
  'logs tail --function hello',
  'logs tail --source requests --level error',
  'logs tail --source functions --json',
];
export const SEARCH_EXAMPLES = [
  'logs search --since 1h',
  'logs search timeout --level error',
  'logs search --function hello --since 2026-11-01 --limit 20',
  'logs search --source audit --json',
];

const examples = (lines: string[]) => `\nExamples:\n${lines.map((line) => `  $ plinth ${line}`).join('\n')}\n`;

/** The `data:` payloads of the complete events in an SSE buffer, and what is left over. */
function takeEvents(buffer: string): { events: string[]; rest: string } {
  const blocks = buffer.split('\n\n');
  const rest = blocks.pop() ?? '';
  const events = blocks.flatMap((block) => {
    const data = block
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trimStart());
    return data.length > 0 ? [data.join('\n')] : [];
  });
  return { events, rest };
}

/** `1h`, `30m`, `2d` ago, or an ISO date or time, as the ISO time the server takes. */
export function sinceTime(value: string, now: Date): string {
  const relative = /^(\d+)([smhd])$/.exec(value);
  if (relative) {
    const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[relative[2] as 's' | 'm' | 'h' | 'd'];
    return new Date(now.getTime() - Number(relative[1]) * unit).toISOString();
  }
  const date = new Date(value);
  if (Number.isNaN(date.getTime()))
    throw new CliError(`--since/--until "${value}" is neither a duration (30m, 1h, 2d) nor an ISO date or time.`);
  return date.toISOString();
}

const sourceOption = () => new Option('--source <source>', 'only this source').choices(LOG_SOURCES);
const levelOption = () => new Option('--level <level>', 'only this level').choices(LEVELS);

export function registerLogs(program: Command, ctx: CommandContext): void {
  const logs = program.command('logs').description('server and function logs');
  const print = (line: LogLine) =>
    ctx.out(
      ctx.flags.json ? printableJson(line) : printable(`${line.timestamp} [${line.source}] ${line.eventMessage}`),
    );

  logs
    .command('tail')
    .description('print new log entries as they happen (Ctrl-C stops); reconnects when the server restarts')
    .option('--function <slug>', "only this function's entries")
    .addOption(sourceOption())
    .addOption(levelOption())
    .addHelpText('after', examples(TAIL_EXAMPLES))
    .action(async (options: { function?: string; source?: string; level?: string }) => {
      const api = await ctx.api();
      const query = { slug: options.function, source: options.source, level: options.level };
      let lost = false;
      for (;;) {
        let res: Response;
        try {
          res = await api.send('GET', '/api/logs/stream', { query, headers: { accept: 'text/event-stream' } });
        } catch (err) {
          // Refused (bad filter, bad key): say why and stop. Unreachable after a loss: keep trying.
          if (!lost || !(err instanceof CliError) || !err.message.startsWith('Cannot reach')) throw err;
          await new Promise((resolve) => setTimeout(resolve, RECONNECT_DELAY_MS));
          continue;
        }
        if (lost) ctx.err('Reconnected: tailing again (entries written meanwhile are in `plinth logs search`).\n');
        else ctx.err(`Tailing logs${options.function ? ` of function ${options.function}` : ''}…\n`);
        const decoder = new TextDecoder();
        let buffer = '';
        try {
          for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
            buffer += decoder.decode(chunk, { stream: true });
            const { events, rest } = takeEvents(buffer);
            buffer = rest;
            for (const data of events) print(JSON.parse(data) as LogLine);
          }
        } catch {
          // The connection broke (the server stopped): handled as an end of the stream.
        }
        lost = true;
        ctx.err('The log stream ended (the server stopped or restarted): reconnecting… (Ctrl-C stops)\n');
      }
    });

  logs
    .command('search')
    .description('print stored log entries, newest first')
    .argument('[text]', 'text in the message or details, or part of a request or user id')
    .option('--function <slug>', "only this function's entries")
    .addOption(sourceOption())
    .addOption(levelOption())
    .option('--since <when>', 'from this time: a duration ago (30m, 1h, 2d) or an ISO date or time')
    .option('--until <when>', 'up to this time (same forms as --since)')
    .option('--limit <n>', 'at most this many entries (up to 1000)', '100')
    .addHelpText('after', examples(SEARCH_EXAMPLES))
    .action(
      async (
        text: string | undefined,
        options: { function?: string; source?: string; level?: string; since?: string; until?: string; limit: string },
      ) => {
        const now = ctx.now();
        const found = await (await ctx.api()).call<LogLine[]>('GET', '/api/logs/search', {
          query: {
            q: text,
            slug: options.function,
            source: options.source,
            level: options.level,
            start_date: options.since === undefined ? undefined : sinceTime(options.since, now),
            end_date: options.until === undefined ? undefined : sinceTime(options.until, now),
            limit: options.limit,
          },
        });
        for (const line of found ?? []) print(line);
        if (!ctx.flags.json && (found ?? []).length === 0) ctx.err('No log entries match.\n');
      },
    );
}
