// argon2id password hashing on libuv's thread pool, with a cap on how many run at once so a
// burst of sign-ins queues here instead of starving every other use of the pool, and a bound on
// that queue so a flood is refused (503 + Retry-After) instead of delaying everyone without end.
import { hash, verify } from '@node-rs/argon2';
import { AppError } from './errors.js';

// OWASP's recommended argon2id parameters: 19 MiB of memory, 2 iterations, 1 lane.
const ARGON2ID = 2; // Algorithm.Argon2id, a const enum the type checker will not let us import
const PARAMS = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 };

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** False for a wrong password; with `storedHash` null, spends the same time and says false. */
  verify(storedHash: string | null, password: string): Promise<boolean>;
}

const hasherBusy = () =>
  new AppError('SERVICE_UNAVAILABLE', 'Too many password checks are waiting right now.', {
    headers: { 'retry-after': '1' },
    nextActions: 'Retry in a second.',
  });

/**
 * Runs at most `limit` tasks at once; up to `maxWaiting` more wait their turn in order, and any
 * beyond those are refused at once with 503.
 */
export function createLimiter(limit: number, maxWaiting = Number.POSITIVE_INFINITY) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async function run<T>(task: () => Promise<T>): Promise<T> {
    if (running >= limit) {
      if (waiting.length >= maxWaiting) throw hasherBusy();
      await new Promise<void>((resolve) => waiting.push(resolve));
    } else running++;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

export async function createPasswordHasher(concurrency: number, maxWaiting: number): Promise<PasswordHasher> {
  const limit = createLimiter(concurrency, maxWaiting);
  // Unknown emails and password-less accounts are checked against this, so they answer in the
  // same time as a wrong password.
  const decoy = await hash('decoy-password-for-timing', PARAMS);
  return {
    hash: (password) => limit(() => hash(password, PARAMS)),
    async verify(storedHash, password) {
      const ok = await limit(() => verify(storedHash ?? decoy, password).catch(() => false));
      return storedHash !== null && ok;
    },
  };
}
