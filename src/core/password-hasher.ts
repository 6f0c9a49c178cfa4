// argon2id password hashing on libuv's thread pool, with a cap on how many run at once so a
// burst of sign-ins queues here instead of starving every other use of the pool.
import { hash, verify } from '@node-rs/argon2';

// OWASP's recommended argon2id parameters: 19 MiB of memory, 2 iterations, 1 lane.
const ARGON2ID = 2; // Algorithm.Argon2id, a const enum the type checker will not let us import
const PARAMS = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 };

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** False for a wrong password; with `storedHash` null, spends the same time and says false. */
  verify(storedHash: string | null, password: string): Promise<boolean>;
}

/** Runs at most `limit` tasks at once; the rest wait their turn in order. */
export function createLimiter(limit: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async function run<T>(task: () => Promise<T>): Promise<T> {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

export async function createPasswordHasher(concurrency: number): Promise<PasswordHasher> {
  const limit = createLimiter(concurrency);
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
