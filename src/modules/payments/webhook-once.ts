// Applies a processor's signed event exactly once, for either processor: the event row is
// claimed (new, or a retry of a failed one) and the event applied in one transaction; a replay
// of a done event is skipped; a failure rolls everything back, is recorded, and answers 500 so
// the processor delivers it again.
import type postgres from 'postgres';
import { withTx } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import * as repo from './webhooks.repo.js';

export async function applyEventOnce(
  deps: Pick<Deps, 'sql' | 'clock'>,
  meta: repo.EventInsert,
  apply: (tx: postgres.TransactionSql, now: Date) => Promise<boolean>,
): Promise<{ handled: boolean; event: repo.WebhookEventRow }> {
  const now = deps.clock.now();
  try {
    return await withTx(deps.sql, async (tx) => {
      const claimed = await repo.claimEvent(tx, meta, now);
      if (!claimed)
        return { handled: false, event: (await repo.findEvent(tx, meta.provider, meta.environment, meta.id))! };
      const applied = await apply(tx, now);
      const done = await repo.finishEvent(
        tx,
        meta.provider,
        meta.environment,
        meta.id,
        { status: applied ? 'processed' : 'ignored', error: null },
        now,
      );
      return { handled: applied, event: done };
    });
  } catch (err) {
    await repo.recordFailure(deps.sql, meta, err instanceof Error ? err.message : String(err), now);
    // Whatever the cause, nothing was applied: a 5xx makes the processor deliver it again.
    throw new AppError(
      'INTERNAL_ERROR',
      'The event could not be applied; nothing was changed and the processor will retry it.',
      { cause: err },
    );
  }
}
