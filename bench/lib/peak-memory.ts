// Runs `work` while sampling this process's RSS every 20 ms: its result, the peak growth over
// `baseline` (bytes) and how long it took. Shared by the storage and backup memory benchmarks.
export async function peakGrowth<T>(
  baseline: number,
  work: () => Promise<T>,
): Promise<{ result: T; peak: number; seconds: number }> {
  let peak = 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss - baseline);
  }, 20);
  const started = performance.now();
  try {
    const result = await work();
    return { result, peak, seconds: (performance.now() - started) / 1000 };
  } finally {
    clearInterval(timer);
  }
}
