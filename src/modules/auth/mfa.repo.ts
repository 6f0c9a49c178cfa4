// SQL for second factors: TOTP factors (of users and of the project admin), their challenges,
// users' recovery codes (hashed), and the project's "admin sign-in needs TOTP" setting.
import type { Queryable } from '../../core/db.js';

/** Whose factor: a user's, or the project admin's (admin_subject, e.g. 'local:<email>'). */
export type FactorOwner = { userId: string } | { adminSubject: string };

export interface FactorRow {
  id: string;
  type: 'totp';
  friendlyName: string;
  status: 'unverified' | 'verified';
  createdAt: Date;
  updatedAt: Date;
}

export interface LockedFactor extends FactorRow {
  secretSealed: string;
  lastUsedStep: string | null;
  lockedUntil: Date | null;
}

const ownerIds = (owner: FactorOwner) => ({
  userId: 'userId' in owner ? owner.userId : null,
  adminSubject: 'adminSubject' in owner ? owner.adminSubject : null,
});

const factorColumns = (db: Queryable) => db`
  f.id, f.factor_type as type, f.friendly_name as "friendlyName", f.status,
  f.created_at as "createdAt", f.updated_at as "updatedAt"`;

const ownedBy = (db: Queryable, owner: FactorOwner) => {
  const { userId, adminSubject } = ownerIds(owner);
  return db`(f.user_id = ${userId}::uuid or f.admin_subject = ${adminSubject}::text)`;
};

export async function listFactors(db: Queryable, owner: FactorOwner): Promise<FactorRow[]> {
  return db<FactorRow[]>`
    select ${factorColumns(db)} from auth.mfa_factors f where ${ownedBy(db, owner)} order by f.created_at, f.id`;
}

/** Inserts an unverified factor; undefined when the owner already has one of this name. */
export async function insertFactor(
  db: Queryable,
  f: { owner: FactorOwner; friendlyName: string; secretSealed: string; now: Date },
): Promise<FactorRow | undefined> {
  const { userId, adminSubject } = ownerIds(f.owner);
  const [row] = await db<FactorRow[]>`
    insert into auth.mfa_factors as f (user_id, admin_subject, friendly_name, secret_sealed, created_at, updated_at)
    values (${userId}::uuid, ${adminSubject}::text, ${f.friendlyName}, ${f.secretSealed}, ${f.now}, ${f.now})
    on conflict do nothing
    returning ${factorColumns(db)}`;
  return row;
}

/** An owner's factor, locked for this transaction (verification reads and writes its counters). */
export async function lockFactor(
  db: Queryable,
  owner: FactorOwner,
  factorId: string,
): Promise<LockedFactor | undefined> {
  const [row] = await db<LockedFactor[]>`
    select ${factorColumns(db)}, f.secret_sealed as "secretSealed", f.last_used_step::text as "lastUsedStep",
      f.locked_until as "lockedUntil"
    from auth.mfa_factors f where f.id = ${factorId}::uuid and ${ownedBy(db, owner)}
    for update`;
  return row;
}

export async function findFactor(
  db: Queryable,
  owner: FactorOwner,
  factorId: string,
): Promise<LockedFactor | undefined> {
  const [row] = await db<LockedFactor[]>`
    select ${factorColumns(db)}, f.secret_sealed as "secretSealed", f.last_used_step::text as "lastUsedStep",
      f.locked_until as "lockedUntil"
    from auth.mfa_factors f where f.id = ${factorId}::uuid and ${ownedBy(db, owner)}`;
  return row;
}

/** Counts a wrong code; the `maxFailures`-th locks the factor until `lockUntil` (and restarts the count). */
export async function recordFactorFailure(
  db: Queryable,
  factorId: string,
  limit: { maxFailures: number; lockUntil: Date; now: Date },
): Promise<{ locked: boolean }> {
  const [row] = await db<{ locked: boolean }[]>`
    update auth.mfa_factors set
      locked_until = case when failed_attempts + 1 >= ${limit.maxFailures} then ${limit.lockUntil} else locked_until end,
      failed_attempts = case when failed_attempts + 1 >= ${limit.maxFailures} then 0 else failed_attempts + 1 end,
      updated_at = ${limit.now}
    where id = ${factorId}::uuid
    returning locked_until is not null and locked_until > ${limit.now} as locked`;
  return row ?? { locked: false };
}

/** A right code: the factor is verified, remembers the code's time step, and its failures are forgiven. */
export async function recordFactorSuccess(db: Queryable, factorId: string, step: number, now: Date): Promise<void> {
  await db`
    update auth.mfa_factors set status = 'verified', last_used_step = ${step}, failed_attempts = 0,
      locked_until = null, updated_at = ${now}
    where id = ${factorId}::uuid`;
}

/** Deletes an owner's factor; false when there is none. A user left without verified factors loses the recovery codes. */
export async function deleteFactor(db: Queryable, owner: FactorOwner, factorId: string): Promise<boolean> {
  const [row] = await db<{ id: string }[]>`
    delete from auth.mfa_factors f where f.id = ${factorId}::uuid and ${ownedBy(db, owner)} returning f.id`;
  if (!row) return false;
  if ('userId' in owner) {
    await db`
      delete from auth.mfa_recovery_codes c where c.user_id = ${owner.userId}::uuid and not exists (
        select 1 from auth.mfa_factors f where f.user_id = ${owner.userId}::uuid and f.status = 'verified')`;
  }
  return true;
}

export async function insertChallenge(
  db: Queryable,
  c: { factorId: string; sessionId: string; now: Date; expiresAt: Date },
): Promise<{ id: string; expiresAt: Date }> {
  const [row] = await db<{ id: string; expiresAt: Date }[]>`
    insert into auth.mfa_challenges (factor_id, session_id, created_at, expires_at)
    values (${c.factorId}::uuid, ${c.sessionId}::uuid, ${c.now}, ${c.expiresAt})
    returning id, expires_at as "expiresAt"`;
  return row!;
}

/** A challenge of this factor issued to this session, locked (it is answered at most once). */
export async function lockChallenge(db: Queryable, c: { challengeId: string; factorId: string; sessionId: string }) {
  const [row] = await db<{ id: string; expiresAt: Date; verifiedAt: Date | null }[]>`
    select id, expires_at as "expiresAt", verified_at as "verifiedAt" from auth.mfa_challenges
    where id = ${c.challengeId}::uuid and factor_id = ${c.factorId}::uuid and session_id = ${c.sessionId}::uuid
    for update`;
  return row;
}

export async function markChallengeVerified(db: Queryable, challengeId: string, now: Date): Promise<void> {
  await db`update auth.mfa_challenges set verified_at = ${now} where id = ${challengeId}::uuid`;
}

/** Replaces a user's recovery codes with these (hashes). */
export async function replaceRecoveryCodes(db: Queryable, userId: string, hashes: Buffer[], now: Date): Promise<void> {
  await db`delete from auth.mfa_recovery_codes where user_id = ${userId}::uuid`;
  await db`
    insert into auth.mfa_recovery_codes (user_id, code_hash, created_at)
    select ${userId}::uuid, decode(h, 'hex'), ${now} from unnest(${hashes.map((h) => h.toString('hex'))}::text[]) h`;
}

/** How many unused recovery codes a user has, and whether any were ever issued. */
export async function recoveryCodeCounts(db: Queryable, userId: string) {
  const [row] = await db<{ issued: number; unused: number }[]>`
    select count(*)::int as issued, (count(*) filter (where used_at is null))::int as unused
    from auth.mfa_recovery_codes where user_id = ${userId}::uuid`;
  return row ?? { issued: 0, unused: 0 };
}

/** Uses one unused recovery code of a user; false when it is unknown or already used. */
export async function useRecoveryCode(db: Queryable, userId: string, hash: Buffer, now: Date): Promise<boolean> {
  const rows = await db`
    update auth.mfa_recovery_codes set used_at = ${now}
    where user_id = ${userId}::uuid and code_hash = ${hash} and used_at is null
    returning 1`;
  return rows.length === 1;
}

export async function readRequireAdminMfa(db: Queryable): Promise<boolean> {
  const [row] = await db<{ value: boolean }[]>`select require_admin_mfa as value from auth.config`;
  return row?.value ?? false;
}

export async function writeRequireAdminMfa(db: Queryable, value: boolean, now: Date): Promise<boolean> {
  const [row] = await db<{ value: boolean }[]>`
    update auth.config set require_admin_mfa = ${value}, updated_at = ${now} returning require_admin_mfa as value`;
  return row?.value ?? value;
}
