// What the issue-38 realtime benches share (notify-ceiling, bus-fanout, logical-capture): the
// realtime guards opened so the delivery path is what is measured, percentiles, the CPU of the
// server processes and PostgreSQL around a run, and the printed table.
import { loadavg } from 'node:os';
import { commandCpuSeconds, pidCpuSeconds, postgresCpuSeconds } from './cpu.js';

/**
 * The per-socket, per-address and per-server event budgets lifted (one socket may publish
 * thousands a second, a hundred sockets come from one address): the database and bus path is
 * measured, not a guard. Everything else is the server's default.
 */
export const OPEN_REALTIME_BUDGETS: Record<string, string> = {
  REALTIME_SOCKET_EVENTS_PER_SECOND: '100000',
  REALTIME_SOCKET_BYTES_PER_SECOND: '1073741824',
  REALTIME_IP_EVENTS_PER_SECOND: '1000000',
  REALTIME_SERVER_EVENTS_PER_SECOND: '1000000',
  REALTIME_MAX_SOCKETS_PER_IP: '100000',
  DB_POOL_QUEUE_MAX: '100000',
};

export const percentile = (xs: number[], p: number): number => {
  const sorted = Float64Array.from(xs).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

export interface CpuUsed {
  /** The Plinth server processes (from /proc/<pid>/stat). */
  server: number;
  /** PostgreSQL: the postmaster and its backends. */
  postgres: number;
  /** The broker's processes by command name (0 without one; shared with anything else using it). */
  broker: number;
}

/** CPU seconds the servers, PostgreSQL and the broker spent while `work` ran. */
export async function cpuDuring<T>(
  o: { serverPids: number[]; pgDataDir: string; broker?: string },
  work: () => Promise<T>,
): Promise<{ value: T; cpu: CpuUsed }> {
  const now = async (): Promise<CpuUsed> => {
    let server = 0;
    for (const pid of o.serverPids) server += await pidCpuSeconds(pid);
    return {
      server,
      postgres: await postgresCpuSeconds(o.pgDataDir),
      broker: o.broker ? await commandCpuSeconds(o.broker) : 0,
    };
  };
  const before = await now();
  const value = await work();
  const after = await now();
  return {
    value,
    cpu: {
      server: after.server - before.server,
      postgres: after.postgres - before.postgres,
      broker: after.broker - before.broker,
    },
  };
}

/** CPU milliseconds per unit (seconds × 1000 / units), with 3 decimals; "–" when there were none. */
export const msPer = (seconds: number, units: number): string =>
  units > 0 && Number.isFinite(seconds) ? ((seconds * 1000) / units).toFixed(3) : '–';

/** The 1, 5 and 15 minute load averages, for the report (the machine may be shared). */
export const loadAverage = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');

/** A Markdown table, columns padded (numbers right-aligned), ready to paste into bench/README.md. */
export function markdownTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const numeric = header.map((_, i) => rows.length > 0 && rows.every((r) => /^[-–\d.,%×]+$/.test(r[i] ?? '')));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ')} |`;
  return [line(header), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...rows.map(line)].join('\n');
}
