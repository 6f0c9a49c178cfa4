// Reads of who pays and what was paid, for the admin: mirrored customers with their spend, and
// the payment history, newest first.
import type { Deps } from '../../deps.js';
import { listCustomers } from './customers.repo.js';
import { listHistory } from './history.repo.js';
import type { Subject } from './billing.repo.js';
import type { Environment } from './processor.js';

export function createHistoryService(deps: Pick<Deps, 'sql'>) {
  return {
    listCustomers: (env: Environment, limit: number) => listCustomers(deps.sql, env, limit),
    listHistory: (env: Environment, subject: Subject | null, limit: number) =>
      listHistory(deps.sql, env, subject, limit),
  };
}

export type HistoryService = ReturnType<typeof createHistoryService>;
