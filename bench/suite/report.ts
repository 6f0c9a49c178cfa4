// Turns scenario outcomes into verdicts, prints them, and writes bench/RESULTS.md.
import { writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, platform, release, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { EnvelopeComparison } from './envelopes.js';
import type { Measurement } from '../lib/measure.js';
import type { ScenarioOutcome } from './scenario.js';

export interface Failed {
  name: string;
  error: string;
}

/**
 * What became of each scenario, in the order they ran. With BENCH_RUNS > 1 the outcome is the run
 * whose target ratio is the median, and `ratios` holds every run's (in the order they ran).
 */
export type Entry = { outcome: ScenarioOutcome; ratios?: number[] } | { failed: Failed };

const outcomesOf = (entries: Entry[]) => entries.flatMap((e) => ('outcome' in e ? [e.outcome] : []));

export interface RunInfo {
  date: Date;
  seconds: number;
  warmupSeconds: number;
}

/** Above this share of the CPU taken by processes outside the benchmark, a run is called noisy. */
const NOISE_SHARE = 0.1;

type Verdict = 'PASS' | 'BELOW' | 'ERRORS' | 'LIMIT ERRORS' | 'REPORTED';

const ratioOf = (o: ScenarioOutcome) => (o.limit.rps > 0 ? o.plinth.rps / o.limit.rps : NaN);
const userViewRps = (o: ScenarioOutcome) => o.userView?.measurement.rps ?? NaN;
const userViewRatioOf = (o: ScenarioOutcome) => (userViewRps(o) > 0 ? o.plinth.rps / userViewRps(o) : NaN);
/** The ratio a target judges: to the user-view limit where the scenario has one. */
export const targetRatioOf = (o: ScenarioOutcome) => (o.userView ? userViewRatioOf(o) : ratioOf(o));
/** The limit measurements of a scenario with their names (the user view only when measured apart). */
const limitSides = (o: ScenarioOutcome): [string, Measurement][] =>
  o.userView && o.userView.measurement !== o.limit
    ? [
        ['limit', o.limit],
        ['user-view', o.userView.measurement],
      ]
    : [['limit', o.limit]];

function verdictOf(o: ScenarioOutcome): Verdict {
  if (o.plinth.failures > 0) return 'ERRORS';
  if (limitSides(o).some(([, m]) => m.failures > 0)) return 'LIMIT ERRORS';
  if (o.target.kind === 'report') return 'REPORTED';
  const value = o.target.kind === 'ratio' ? targetRatioOf(o) : o.plinth.rps;
  return value >= o.target.min ? 'PASS' : 'BELOW';
}

const targetText = ({ target, userView }: ScenarioOutcome) =>
  target.kind === 'ratio'
    ? `≥ ${Math.round(target.min * 100)}% of ${userView ? 'user view' : 'limit'}`
    : target.kind === 'rps'
      ? `≥ ${target.min.toLocaleString('en-US')} req/s`
      : 'none (reported)';
const rps = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1));
// autocannon reports whole milliseconds; the argon2 timings are finer.
const ms = (n: number) =>
  Number.isFinite(n) ? `${Number.isInteger(n) || n >= 10 ? Math.round(n) : n.toFixed(1)} ms` : '–';
const pct = (n: number) => (Number.isFinite(n) ? `${Math.round(n * 100)}%` : '–');

export function machine(): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  const mem = Math.round(totalmem() / 2 ** 30);
  return `${availableParallelism()} cores (${cpu}), ${mem} GiB, ${platform()} ${release()}, Node ${process.version}`;
}

const HEADER = [
  'scenario',
  'Plinth req/s',
  'Plinth p50',
  'Plinth p99',
  'limit req/s',
  'limit p50',
  'limit p99',
  'ratio',
  'user-view req/s',
  'vs user view',
  'target',
  'result',
];

function row(e: Entry): string[] {
  if ('failed' in e) return [e.failed.name, '–', '–', '–', '–', '–', '–', '–', '–', '–', '–', 'DID NOT RUN'];
  const o = e.outcome;
  return [
    o.name,
    rps(o.plinth.rps),
    ms(o.plinth.p50),
    ms(o.plinth.p99),
    rps(o.limit.rps),
    ms(o.limit.p50),
    ms(o.limit.p99),
    pct(ratioOf(o)),
    o.userView ? rps(userViewRps(o)) : '–',
    pct(userViewRatioOf(o)),
    targetText(o),
    verdictOf(o),
  ];
}

/** Lines that must not be missed: failed requests, scenarios that did not run, noisy runs. */
function alarms(entries: Entry[], envelopes?: EnvelopeComparison): string[] {
  const lines: string[] = [];
  for (const r of envelopes?.runs ?? []) {
    if (r.error) lines.push(`envelopes, ${r.scenario} on ${r.side}: COULD NOT RUN: ${r.error}`);
    else if (r.measurement && r.measurement.failures > 0) {
      lines.push(
        `envelopes, ${r.scenario} on ${r.side}: ${r.measurement.failures} FAILED REQUESTS (${r.measurement.failureDetail})`,
      );
    }
  }
  for (const e of entries) {
    if ('failed' in e) {
      lines.push(`${e.failed.name}: COULD NOT RUN: ${e.failed.error}`);
      continue;
    }
    const o = e.outcome;
    if (o.plinth.failures > 0) {
      lines.push(
        `${o.name}: PLINTH HAD ${o.plinth.failures} FAILED REQUESTS (${o.plinth.failureDetail}); its req/s counts only correct responses`,
      );
    }
    for (const [side, m] of limitSides(o)) {
      if (m.failures > 0) {
        lines.push(
          `${o.name}: THE ${side.toUpperCase()} LIMIT HAD ${m.failures} FAILED REQUESTS (${m.failureDetail}); the ratio is not meaningful`,
        );
      }
    }
    const noisiest = Math.max(o.plinth.cpu.otherShare, ...limitSides(o).map(([, m]) => m.cpu.otherShare));
    if (noisiest > NOISE_SHARE) {
      lines.push(
        `${o.name}: other processes took up to ${Math.round(noisiest * 100)}% of the machine's CPU during it; its numbers are unreliable (run again on a quiet machine)`,
      );
    }
  }
  return lines;
}

const CPU_HEADER = [
  'scenario',
  'side',
  'server',
  'postgres',
  'deno',
  'load gen',
  'bench total',
  'req/s if CPU-bound',
  'other processes',
];

/** Where the machine's CPU went per successful request, and the rate that caps at all cores busy. */
function cpuRows(entries: Entry[]): string[][] {
  const cpuMs = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '–');
  return outcomesOf(entries).flatMap((o) =>
    [['plinth', o.plinth] as [string, Measurement], ...limitSides(o)].map(([side, m]) => {
      const c = m.cpu;
      const total = c.server + c.postgres + c.runtime + (Number.isFinite(c.load) ? c.load : 0);
      const other = Number.isFinite(c.otherShare) ? `${Math.round(c.otherShare * 100)}% of CPU` : '–';
      return [
        o.name,
        side,
        cpuMs(c.server),
        cpuMs(c.postgres),
        cpuMs(c.runtime),
        cpuMs(c.load),
        cpuMs(total),
        rps((availableParallelism() * 1000) / total),
        other,
      ];
    }),
  );
}

function printTable(table: string[][], leftColumns: number[]): void {
  const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r.map((c, i) => (leftColumns.includes(i) ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(line(table[0]!));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of table.slice(1)) console.log(line(r));
}

const ENVELOPE_HEADER = [
  'scenario',
  'side',
  'req/s',
  'p50',
  'p99',
  'vs limit',
  'server CPU ms',
  'postgres CPU ms',
  'failures',
];

/** The envelope comparison (BENCH_ENVELOPES=1): each run's rate as a share of the limit's envelope. */
function envelopeRows(c: EnvelopeComparison): string[][] {
  const cpuMs = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '–');
  return c.runs.map((r) => {
    const limit = c.runs.find((l) => l.scenario === r.scenario && l.side === c.limit)?.measurement?.rps ?? NaN;
    const m = r.measurement;
    if (!m) return [r.scenario, r.side, '–', '–', '–', '–', '–', '–', `DID NOT RUN: ${r.error}`];
    return [
      r.scenario,
      r.side === c.limit ? `${r.side} (the limit)` : r.side,
      rps(m.rps),
      ms(m.p50),
      ms(m.p99),
      pct(m.rps / limit),
      cpuMs(m.cpu.server),
      cpuMs(m.cpu.postgres),
      m.failures ? `${m.failures} (${m.failureDetail})` : '0',
    ];
  });
}

/** One line per scenario that ran more than once: every run's target ratio, and the median shown above. */
const repeatedRuns = (entries: Entry[]): string[] =>
  entries.flatMap((e) =>
    'outcome' in e && e.ratios && e.ratios.length > 1
      ? [`${e.outcome.name}: ${e.ratios.map(pct).join(', ')} (median ${pct(targetRatioOf(e.outcome))}, the run shown)`]
      : [],
  );

const envelopeNotes = (c: EnvelopeComparison) => Object.entries(c.text).map(([name, text]) => `${name}: ${text}`);

export function printReport(info: RunInfo, entries: Entry[], envelopes?: EnvelopeComparison): void {
  console.log(`\nPlinth benchmark, ${info.date.toISOString()}: ${machine()}`);
  console.log(
    `${info.seconds} s per run after a ${info.warmupSeconds} s warm-up; req/s counts correct responses only (2xx, or the one status a scenario expects)\n`,
  );
  printTable([HEADER, ...entries.map(row)], [0, 10, 11]);
  const repeated = repeatedRuns(entries);
  if (repeated.length)
    console.log(`\nTarget ratio of each run (BENCH_RUNS):\n${repeated.map((l) => `  ${l}`).join('\n')}`);
  console.log(
    `\nCPU ms per successful request (all ${availableParallelism()} cores busy = ${availableParallelism() * 1000} ms of CPU per second):\n`,
  );
  printTable([CPU_HEADER, ...cpuRows(entries)], [0, 1]);
  console.log('');
  for (const o of outcomesOf(entries))
    console.log(
      `${o.name}: ${o.request}, ${o.connections} connections\n  limit: ${o.limitDoes}${o.userView ? `\n  user view: ${o.userView.does}` : ''}`,
    );
  if (envelopes) {
    console.log(
      '\nTransaction envelopes (BENCH_ENVELOPES=1), the records scenarios on Plinth and on each envelope of the limit:\n',
    );
    printTable([ENVELOPE_HEADER, ...envelopeRows(envelopes)], [0, 1, 8]);
    console.log('');
    for (const line of envelopeNotes(envelopes)) console.log(`  ${line}`);
  }
  const alarm = alarms(entries, envelopes);
  if (alarm.length) console.log(`\n${'!'.repeat(72)}\n${alarm.map((a) => `!! ${a}`).join('\n')}\n${'!'.repeat(72)}`);
}

const RESULTS = fileURLToPath(new URL('../RESULTS.md', import.meta.url));

export async function writeResults(info: RunInfo, entries: Entry[], envelopes?: EnvelopeComparison): Promise<void> {
  const md = (r: string[]) => `| ${r.join(' | ')} |`;
  const alarm = alarms(entries, envelopes);
  const text = [
    '# Benchmark results',
    '',
    'Written by `npm run bench` (overwritten on each run). Ratios are what compare across machines;',
    'absolute numbers only within one run.',
    '',
    `- date: ${info.date.toISOString()}`,
    `- machine: ${machine()}`,
    `- runs: ${info.seconds} s each after a ${info.warmupSeconds} s warm-up, autocannon on loopback in a separate process; req/s counts correct responses only (2xx, or the one status a scenario expects)`,
    '',
    md(HEADER),
    md(HEADER.map(() => '---')),
    ...entries.map(row).map(md),
    '',
    ...(repeatedRuns(entries).length
      ? ['Target ratio of each run (`BENCH_RUNS`):', '', ...repeatedRuns(entries).map((l) => `- ${l}`), '']
      : []),
    ...(alarm.length ? ['**Problems:**', '', ...alarm.map((a) => `- **${a}**`), ''] : []),
    `CPU ms per successful request (all ${availableParallelism()} cores busy = ${availableParallelism() * 1000} ms of CPU per second; "server" is the process under test with its thread pool, "deno" the function runtime it started):`,
    '',
    md(CPU_HEADER),
    md(CPU_HEADER.map(() => '---')),
    ...cpuRows(entries).map(md),
    '',
    'What each scenario does:',
    '',
    ...outcomesOf(entries).map(
      (o) =>
        `- **${o.name}**: ${o.request}, ${o.connections} connections. Limit: ${o.limitDoes}.${o.userView ? ` User view: ${o.userView.does}.` : ''}`,
    ),
    '',
    ...(envelopes
      ? [
          'Transaction envelopes (`BENCH_ENVELOPES=1`): the records scenarios on Plinth and on each envelope of the limit server, in this run (CPU ms per successful request):',
          '',
          md(ENVELOPE_HEADER),
          md(ENVELOPE_HEADER.map(() => '---')),
          ...envelopeRows(envelopes).map(md),
          '',
          ...envelopeNotes(envelopes).map((line) => `- ${line}`),
          '',
        ]
      : []),
  ].join('\n');
  await writeFile(RESULTS, text);
}
