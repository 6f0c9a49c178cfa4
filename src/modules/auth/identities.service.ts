// A user's identities (sign-in methods): listing them, unlinking one unless it is the last, and
// linking a provider account to a signed-in user (which converts an anonymous user). The OAuth
// module calls `linkProviderIdentity` when a link flow finishes.
import { AppError } from '../../core/errors.js';
import type { Queryable } from '../../core/db.js';
import type { Deps } from '../../deps.js';
import { endAnonymity, emailTaken, lockUser } from './anonymous.repo.js';
import * as repo from './identities.repo.js';

export type Identity = repo.IdentityRow;

export interface ProviderLink {
  userId: string;
  provider: string;
  accountId: string;
  /** What the provider shared (email, name, avatar_url), kept with the link. */
  data: Record<string, unknown>;
  /** The provider's address, only when the provider verified it. */
  verifiedEmail: string | null;
}

/**
 * Links a provider account to the user, in the caller's transaction. A provider account already
 * linked to another user is a 409; linking one already linked to this user changes nothing. An
 * anonymous user stops being anonymous, and takes the provider's verified address when it has
 * none and no other user has it.
 */
export async function linkProviderIdentity(tx: Queryable, link: ProviderLink, now: Date): Promise<void> {
  const user = await lockUser(tx, link.userId);
  if (!user) throw new AppError('AUTH_USER_NOT_FOUND');
  const owner = await repo.findProviderAccountOwner(tx, link.provider, link.accountId);
  if (owner && owner !== link.userId) {
    throw new AppError('CONFLICT', `This ${link.provider} account is already linked to another user.`, {
      nextActions: `Sign in with ${link.provider} to use that account, or unlink it there first (DELETE /api/auth/identities/{identityId}).`,
    });
  }
  if (!owner) {
    await repo.insertProviderIdentity(tx, { ...link, now });
  }
  if (user.isAnonymous) {
    const email =
      user.email === null && link.verifiedEmail && !(await emailTaken(tx, link.verifiedEmail, link.userId))
        ? link.verifiedEmail
        : null;
    await endAnonymity(tx, link.userId, email, now);
  }
}

const lastMethod = () =>
  new AppError('CONFLICT', 'This is the last way to sign in to this account; it cannot be unlinked.', {
    nextActions:
      'Link another sign-in method first (POST /api/auth/identities/email, or GET /api/auth/identities/oauth/{provider}), then unlink this one.',
  });

export function createIdentityService(deps: Pick<Deps, 'sql' | 'clock'>) {
  return {
    list: (userId: string) => repo.listIdentities(deps.sql, userId),

    /**
     * Unlinks one identity ("password" or a linked account's id). The user's row is locked, so
     * two concurrent unlinks cannot both remove "all but one" and leave none.
     */
    async unlink(userId: string, identityId: string): Promise<Identity[]> {
      return deps.sql.begin(async (tx) => {
        if (!(await lockUser(tx, userId))) throw new AppError('AUTH_USER_NOT_FOUND');
        const identities = await repo.listIdentities(tx, userId);
        if (!identities.some((i) => i.id === identityId)) {
          throw new AppError('NOT_FOUND', 'This user has no identity with this id.', {
            nextActions: 'List the identities with GET /api/auth/identities and pick one of them.',
          });
        }
        if (identities.length <= 1) throw lastMethod();
        if (identityId === 'password') await repo.clearPassword(tx, userId, deps.clock.now());
        else await repo.deleteProviderIdentity(tx, userId, identityId);
        return repo.listIdentities(tx, userId);
      });
    },
  };
}

export type IdentityService = ReturnType<typeof createIdentityService>;
