// Reads of the billing mirror for the admin: subscriptions with their items, newest change first.
import type { Deps } from '../../deps.js';
import * as billing from './billing.repo.js';
import type { Subject } from './billing.repo.js';
import type { Environment } from './processor.js';

type Item = { createdAt: string | Date; updatedAt: string | Date };

/** Items come back as JSON from the database: their dates are strings until turned back. */
const withItemDates = <T extends { items: Item[] }>(row: T) => ({
  ...row,
  items: row.items.map((i) => ({ ...i, createdAt: new Date(i.createdAt), updatedAt: new Date(i.updatedAt) })),
});

export function createBillingService(deps: Pick<Deps, 'sql'>) {
  return {
    async listSubscriptions(env: Environment, subject: Subject | null, limit: number) {
      const rows = await billing.listSubscriptions(deps.sql, env, subject, limit);
      return rows.map((r) => withItemDates(r as never));
    },
  };
}

export type BillingService = ReturnType<typeof createBillingService>;
