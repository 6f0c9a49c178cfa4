// The rate limit on functions management writes (create, update, delete): FUNCTIONS_WRITE_RATE_LIMIT
// (15) per 5 minutes per IP, as the reference platform; each deploy restarts work in the runtime.
import type { onRequestHookHandler } from 'fastify';
import { createRateLimiter, type Limit } from '../../core/rate-limiter.js';
import type { Deps } from '../../deps.js';

/** A route hook counting one write for the caller's IP (after the admin check); 429 with Retry-After past the limit. */
export function functionsWriteLimit(deps: Pick<Deps, 'sql' | 'clock' | 'config'>): onRequestHookHandler {
  const limiter = createRateLimiter(deps.sql, deps.clock);
  const limit: Limit = {
    name: 'functions-write:ip',
    max: deps.config.functions.writeRateLimit,
    windowSeconds: 5 * 60,
    message: 'Too many function deployments from this address. Try again in {seconds} seconds.',
  };
  return async (request) => {
    await limiter.hit(limit, request.ip);
  };
}
