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
