// The sign-in limit: how many argon2 verifications per second this machine does on all cores,
// against a stored hash (so with exactly the parameters Plinth hashed it with).
import { availableParallelism } from 'node:os';
import { verify } from '@node-rs/argon2';

export interface Argon2Rate {
  verifies: number;
  seconds: number;
  verifiesPerSecond: number;
  concurrency: number;
  /** Duration of one verification, ms. */
  p50: number;
  p99: number;
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** Runs verifications with concurrency = availableParallelism() for `seconds`. */
export async function measureArgon2Rate(storedHash: string, password: string, seconds: number): Promise<Argon2Rate> {
  const concurrency = availableParallelism();
  if (!(await verify(storedHash, password))) throw new Error('argon2: the stored hash does not match the password');
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const durations: number[] = [];
  const lane = async () => {
    while (performance.now() < deadline) {
      const t = performance.now();
      if (!(await verify(storedHash, password))) throw new Error('argon2: verification failed');
      durations.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  const elapsed = (performance.now() - started) / 1000;
  durations.sort((a, b) => a - b);
  return {
    verifies: durations.length,
    seconds: elapsed,
    verifiesPerSecond: durations.length / elapsed,
    concurrency,
    p50: percentile(durations, 50),
    p99: percentile(durations, 99),
  };
}
