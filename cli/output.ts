// How commands print: `--json` prints one JSON document, otherwise aligned tables and lines.
import type { CommandContext } from './command-context.js';

/** Columns padded to their widest cell, two spaces apart; the first row is the header. */
export function formatTable(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
}

/** A cell for any value: strings as they are, null as empty, the rest as JSON. */
export const cell = (value: unknown): string =>
  value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);

/** Objects as a table of the given columns (all keys of the first row when none are given). */
export function objectTable(items: Record<string, unknown>[], columns?: string[]): string[] {
  const keys = columns ?? Object.keys(items[0] ?? {});
  if (keys.length === 0) return [];
  return formatTable([keys, ...items.map((item) => keys.map((k) => cell(item[k])))]);
}

/** `--json`: the data as JSON; otherwise the human lines. */
export function emit(ctx: CommandContext, data: unknown, human: () => string[]): void {
  if (ctx.flags.json) ctx.out(JSON.stringify(data, null, 2));
  else for (const line of human()) ctx.out(line);
}

/** A progress line of a human run; `--json` runs print only their final answer. */
export function say(ctx: CommandContext, line: string): void {
  if (!ctx.flags.json) ctx.out(line);
}
