// Writes a payments route makes in the caller's own request scope, so that row-level security
// decides whose billing subject the caller may act for (both processors use it), and probes that
// ask the same question and leave nothing behind.
import type postgres from 'postgres';
import { withRequestScope } from '../../core/db.js';
import type { AppError } from '../../core/errors.js';
import { withPgOverrides } from '../../core/pg-errors.js';
import type { Principal } from '../../core/principal.js';
import { scopeOf } from '../../core/principal.js';
import type { Deps } from '../../deps.js';

/** Who made a payments record: `user:<id>`, `admin:<subject>` or `anon`. */
export const principalId = (p: Principal) =>
  p.kind === 'user' ? `user:${p.userId}` : p.kind === 'admin' ? `admin:${p.subject}` : 'anon';

/** Runs `work` as the caller; a refusal by row-level security (42501) becomes `refusal`. */
export function runAsCaller<T>(
  deps: Pick<Deps, 'sql' | 'config'>,
  principal: Principal,
  refusal: (cause: unknown) => AppError,
  work: (db: postgres.Sql) => Promise<T>,
): Promise<T> {
  return withPgOverrides({ '42501': (_pg, cause) => refusal(cause) }, () =>
    withRequestScope(deps.sql, scopeOf(principal, deps.config.statementTimeouts), work, 'writes'),
  );
}

class RolledBack<T> {
  constructor(readonly value: T) {}
}

/** As runAsCaller, in a transaction that is always rolled back: what the caller may do, not done. */
export async function probeAsCaller<T>(
  deps: Pick<Deps, 'sql' | 'config'>,
  principal: Principal,
  refusal: (cause: unknown) => AppError,
  work: (db: postgres.Sql) => Promise<T>,
): Promise<T> {
  try {
    await runAsCaller(deps, principal, refusal, async (db) => {
      throw new RolledBack(await work(db));
    });
  } catch (err) {
    if (err instanceof RolledBack) return err.value as T;
    throw err;
  }
  throw new Error('unreachable: a probe always rolls back');
}
