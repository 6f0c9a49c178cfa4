// Resident memory of a process from /proc (Linux), and a sampler of its peak: runs `work` while
// sampling the RSS every 20 ms: its result, the peak growth over `baseline` (bytes) and how long it
// took. Shared by the storage, backup and tus memory benchmarks.
import { readFileSync } from 'node:fs';

/** VmRSS of `pid` in bytes (this process by default). */
export function rssBytes(pid: number = process.pid): number {
  if (pid === process.pid) return process.memoryUsage().rss;
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.replace(/\D+/g, '') ?? 0) * 1024;
}

export async function peakGrowth<T>(
  baseline: number,
  work: () => Promise<T>,
  pid: number = process.pid,
): Promise<{ result: T; peak: number; seconds: number }> {
  let peak = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssBytes(pid) - baseline);
  }, 20);
  const started = performance.now();
  try {
    const result = await work();
    return { result, peak: Math.max(peak, rssBytes(pid) - baseline), seconds: (performance.now() - started) / 1000 };
  } finally {
    clearInterval(timer);
  }
}
