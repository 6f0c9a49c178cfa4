// The server's pino options: JSON lines when stdout is a pipe or file (log collectors parse them),
// one coloured line per entry when it is a terminal (people read it), LOG_FORMAT forcing either.
// pino-pretty is loaded only for the pretty form, so a production server never loads it.
import type { Writable } from 'node:stream';

export type LogFormat = 'json' | 'pretty';

/** The format to write: LOG_FORMAT when set, else pretty on a terminal and JSON otherwise. */
export function chooseLogFormat(setting: LogFormat | undefined, stdoutIsTerminal: boolean): LogFormat {
  return setting ?? (stdoutIsTerminal ? 'pretty' : 'json');
}

/** Options for Fastify's `logger`: the level, and for the pretty form a stream that formats each entry. */
export async function loggerOptions(level: string, format: LogFormat): Promise<{ level: string; stream?: Writable }> {
  if (format === 'json') return { level };
  const { default: pretty } = await import('pino-pretty');
  // Written synchronously: a terminal takes little, and nothing is lost when the process exits.
  return {
    level,
    stream: pretty({ sync: true, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }),
  };
}

/**
 * Where the lines printed before and beside the logger go (the start banner, a stale database
 * stopped): plain text for people on a terminal, one JSON log entry per line when the log is JSON,
 * so that a collector reading a pipe parses every line. Written whatever LOG_LEVEL says, all the
 * lines of one call in one write (a reader never sees half a banner).
 */
export async function startupWriter(format: LogFormat): Promise<(lines: string | string[]) => void> {
  const all = (lines: string | string[]) => (Array.isArray(lines) ? lines : [lines]);
  if (format === 'pretty') return (lines) => console.log(all(lines).join('\n'));
  const { pino } = await import('pino');
  let pending = '';
  const log = pino(
    { level: 'info' },
    {
      write: (entry: string) => {
        pending += entry;
      },
    },
  );
  return (lines) => {
    for (const line of all(lines)) log.info(line);
    process.stdout.write(pending);
    pending = '';
  };
}
