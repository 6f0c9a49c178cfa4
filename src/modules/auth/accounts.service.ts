// Accounts as the sign-in flows of this and other modules (OAuth) see them: a user by id, the
// account of an address, and the claim of an unverified account by the inbox's proven owner.
// `db` may be a transaction of the caller's.
import type { Queryable } from '../../core/db.js';
import { revokeUserSessions } from './sessions.repo.js';
import * as users from './users.repo.js';

export const findUserById = (db: Queryable, id: string) => users.findUserById(db, id);

/** The account of an address, with whether it is verified and has a password. */
export const findAccountByEmail = (db: Queryable, email: string) => users.findAccountByEmail(db, email);

/**
 * When the owner of an inbox proves it for an account someone registered without proving it, the
 * account becomes theirs alone: the registrant's password, sessions and provider links (all made
 * with an unverified address) are dropped.
 */
export async function claimUnverifiedAccount(
  db: Queryable,
  account: { id: string; email: string },
  now: Date,
  reason: string,
) {
  await users.markEmailVerified(db, account.email, now, true);
  await revokeUserSessions(db, account.id, now, reason);
  await users.unlinkProviderAccounts(db, account.id);
}
