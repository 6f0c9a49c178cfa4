// Which user a provider sign-in belongs to: the one already linked to the provider account;
// else the user with the same email, when the provider verified it and the admin allows linking
// by email (linkOAuthByEmail, off by default: else a 409 that says how to link); else a new
// user, unless public signups are disabled. One transaction.
import type { TransactionSql } from 'postgres';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import { claimUnverifiedAccount, findAccountByEmail, readAuthConfig } from '../auth/index.js';
import { findUserIdByProviderAccount, insertProviderUser, linkProviderAccount } from './oauth.repo.js';
import type { ProviderProfile } from './providers.js';

export async function resolveAccount(
  deps: Pick<Deps, 'sql' | 'clock'>,
  provider: string,
  profile: ProviderProfile,
): Promise<string> {
  return deps.sql.begin((tx) => resolveAccountIn(tx, deps.clock.now(), provider, profile));
}

/** The same inside the caller's transaction, so the account commits (or not) with the caller's other writes. */
export async function resolveAccountIn(
  tx: TransactionSql,
  now: Date,
  provider: string,
  profile: ProviderProfile,
): Promise<string> {
  const linked = await findUserIdByProviderAccount(tx, provider, profile.accountId);
  if (linked) return linked;
  if (!profile.email) {
    throw new AppError('VALIDATION_ERROR', `${provider} did not share an email address, which an account needs.`, {
      nextActions: 'Allow the app to see your email address at the provider, or sign up with email.',
    });
  }
  const data = { email: profile.email, name: profile.name, avatar_url: profile.avatarUrl };
  const existing = await findAccountByEmail(tx, profile.email);
  if (existing) {
    if (!profile.emailVerified) {
      throw new AppError(
        'CONFLICT',
        `An account with ${profile.email} exists, and ${provider} did not verify this address.`,
        {
          nextActions: 'Sign in with the existing method for this email.',
        },
      );
    }
    if (existing.emailVerified && !(await readAuthConfig(tx)).linkOAuthByEmail) {
      // The owner proved this inbox; a provider account joins it only by the owner's own link.
      throw new AppError(
        'CONFLICT',
        `An account with ${profile.email} already exists; ${provider} was not linked to it.`,
        {
          nextActions: `Sign in to that account with its existing method, then link ${provider} with GET /api/auth/identities/oauth/${provider} (the admin may instead allow linking by verified email: linkOAuthByEmail).`,
        },
      );
    }
    if (!existing.emailVerified) {
      // Whoever registered the address without proving the inbox loses the password, its
      // sessions and its provider links (all made with an unverified address, or the account
      // would be verified): the provider just proved the inbox belongs to someone else.
      await claimUnverifiedAccount(tx, { id: existing.id, email: profile.email }, now, 'provider_verified_takeover');
    }
    await linkProviderAccount(tx, { userId: existing.id, provider, accountId: profile.accountId, data, now });
    return existing.id;
  }
  if ((await readAuthConfig(tx)).disableSignup) {
    throw new AppError('AUTH_SIGNUP_DISABLED', undefined, {
      nextActions: 'Ask the project admin to create the account.',
    });
  }
  const userProfile = Object.fromEntries(
    Object.entries({ name: profile.name, avatar_url: profile.avatarUrl }).filter(([, v]) => v !== undefined),
  );
  const userId = await insertProviderUser(tx, {
    email: profile.email,
    emailVerified: profile.emailVerified,
    profile: userProfile,
  });
  if (!userId)
    throw new AppError('CONFLICT', 'The account was created by another sign-in at the same moment; try again.');
  await linkProviderAccount(tx, { userId, provider, accountId: profile.accountId, data, now });
  return userId;
}
