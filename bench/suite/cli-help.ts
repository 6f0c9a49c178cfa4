// Start-up benchmark of the installed CLI: `node cli/bin/plinth.js --help` (compiled, no loader)
// against a bare `node -e 0`, in turn, so the ratio holds when the machine's speed drifts. Prints
// the medians of wall time and of the child's CPU time (user + system) and the target (300 ms).
// Usage: npm run bench:cli [runs]   (default 10 runs after one warm-up of each).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median } from '../lib/median.js';

const BIN = fileURLToPath(new URL('../../cli/bin/plinth.js', import.meta.url));
const RUNS = Number(process.argv[2] ?? 10);
const TARGET_MS = 300;

/** Wall and CPU milliseconds of one run, CPU read from the shell's `times` after the child ends. */
function timed(args: string[]): { wallMs: number; cpuMs: number } {
  const script = `"${process.execPath}" ${args.map((a) => `'${a}'`).join(' ')} >/dev/null; times`;
  const started = performance.now();
  const res = spawnSync('/bin/sh', ['-c', script], { encoding: 'utf8' });
  const wallMs = performance.now() - started;
  // `times` prints the shell's own line, then its children's: "0m0.120s 0m0.020s".
  const children = res.stdout.trim().split('\n').at(-1) ?? '';
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  return { wallMs, cpuMs: (seconds[0]! + seconds[1]!) * 1000 };
}

timed([BIN, '--help']);
timed(['-e', '0']);
const cli: { wallMs: number; cpuMs: number }[] = [];
const bare: { wallMs: number; cpuMs: number }[] = [];
for (let i = 0; i < RUNS; i++) {
  cli.push(timed([BIN, '--help']));
  bare.push(timed(['-e', '0']));
}
const ratios = cli.map((c, i) => c.wallMs / bare[i]!.wallMs);
console.log(
  `plinth --help: wall ${median(cli.map((r) => r.wallMs)).toFixed(0)} ms, cpu ${median(cli.map((r) => r.cpuMs)).toFixed(0)} ms (median of ${RUNS})`,
);
console.log(
  `node -e 0:     wall ${median(bare.map((r) => r.wallMs)).toFixed(0)} ms, cpu ${median(bare.map((r) => r.cpuMs)).toFixed(0)} ms`,
);
console.log(`ratio (wall, pair by pair): ${median(ratios).toFixed(2)}; target: --help under ${TARGET_MS} ms`);
