// `plinth logs tail [--function <slug>]`: follows the server's live log stream (Server-Sent Events
// of /api/logs/stream) and prints each entry until interrupted; --json prints one JSON per line.
import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { printable, printableJson } from '../../src/core/printable.js';

interface LogLine {
  timestamp: string;
  eventMessage: string;
  source: string;
}

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

export function registerLogs(program: Command, ctx: CommandContext): void {
  const logs = program.command('logs').description('server and function logs');
  logs
    .command('tail')
    .description('print new log entries as they happen (Ctrl-C stops)')
    .option('--function <slug>', "only this function's entries")
    .option('--source <source>', 'only this source (e.g. functions, http, server)')
    .option('--level <level>', 'only this level: info, warn or error')
    .action(async (options: { function?: string; source?: string; level?: string }) => {
      const res = await (await ctx.api()).send('GET', '/api/logs/stream', {
        query: { slug: options.function, source: options.source, level: options.level },
        headers: { accept: 'text/event-stream' },
      });
      if (!ctx.flags.json) ctx.err(`Tailing logs${options.function ? ` of function ${options.function}` : ''}…\n`);
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        const { events, rest } = takeEvents(buffer);
        buffer = rest;
        for (const data of events) {
          const line = JSON.parse(data) as LogLine;
          ctx.out(
            ctx.flags.json ? printableJson(line) : printable(`${line.timestamp} [${line.source}] ${line.eventMessage}`),
          );
        }
      }
    });
}
