// Bounded concurrency for image transformations: at most `concurrency` run at once (each holds a
// libuv thread while sharp works, and there are four), at most `maxWaiting` wait for a turn, and
// past that a request is refused at once with 503 and Retry-After instead of piling up.
import { AppError } from '../../core/errors.js';

export interface WorkQueue {
  run<T>(work: () => Promise<T>): Promise<T>;
  stats(): { running: number; waiting: number; refused: number };
}

export function createWorkQueue(concurrency: number, maxWaiting: number): WorkQueue {
  let running = 0;
  let refused = 0;
  const waiting: (() => void)[] = [];

  /** Hands the slot to the next waiter, or frees it. */
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };

  return {
    async run(work) {
      if (running < concurrency) {
        running++;
      } else {
        if (waiting.length >= maxWaiting) {
          refused++;
          throw new AppError('SERVICE_UNAVAILABLE', 'Too many image transformations are in progress.', {
            headers: { 'retry-after': '1' },
            nextActions: 'Retry after the number of seconds in the Retry-After header; transformed images are cached.',
          });
        }
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
      try {
        return await work();
      } finally {
        release();
      }
    },
    stats: () => ({ running, waiting: waiting.length, refused }),
  };
}
