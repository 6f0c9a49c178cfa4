// The admin's view and control of the public routes' rate limits: the effective values, and
// overrides (or restored defaults) written in one transaction; every server reads them on its
// next check.
import { withTx } from '../../core/db.js';
import type { Deps } from '../../deps.js';
import { listRateLimits, updateRateLimits } from './rate-limits.repo.js';
import type { RateLimitsUpdate } from './rate-limits.schemas.js';

export function createRateLimitSettingsService(deps: Pick<Deps, 'sql' | 'clock'>) {
  return {
    list: () => listRateLimits(deps.sql),
    async update(update: RateLimitsUpdate) {
      await withTx(deps.sql, (tx) => updateRateLimits(tx, update, deps.clock.now()));
      return listRateLimits(deps.sql);
    },
  };
}

export type RateLimitSettingsService = ReturnType<typeof createRateLimitSettingsService>;
