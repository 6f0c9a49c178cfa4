// When the owner of an inbox proves it for an account someone registered without proving it,
// the account becomes theirs alone: the registrant's password, sessions and provider links
// (all made with an unverified address) are dropped.
import type { Queryable } from '../../core/db.js';
import { revokeUserSessions } from './sessions.repo.js';
import { markEmailVerified, unlinkProviderAccounts } from './users.repo.js';

export async function claimUnverifiedAccount(
  db: Queryable,
  account: { id: string; email: string },
  now: Date,
  reason: string,
) {
  await markEmailVerified(db, account.email, now, true);
  await revokeUserSessions(db, account.id, now, reason);
  await unlinkProviderAccounts(db, account.id);
}
