// SQL for passkeys (auth.passkeys) and the single-use WebAuthn challenges (auth.webauthn_challenges).
import type { Queryable } from '../../core/db.js';

export interface PasskeyRow {
  id: string;
  userId: string;
  credentialId: string;
  publicKey: Buffer;
  counter: number;
  transports: string[];
  deviceType: 'singleDevice' | 'multiDevice';
  backedUp: boolean;
  aaguid: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

const passkeyColumns = (db: Queryable) => db`
  id, user_id as "userId", credential_id as "credentialId", public_key as "publicKey",
  counter::float8 as counter, transports, device_type as "deviceType", backed_up as "backedUp", aaguid, name,
  created_at as "createdAt", last_used_at as "lastUsedAt"`;

export type ChallengePurpose = 'registration' | 'sign-in' | 'assurance';

export interface ChallengeRow {
  id: string;
  purpose: ChallengePurpose;
  challenge: string;
  userId: string | null;
  sessionId: string | null;
  passkeyName: string | null;
  expiresAt: Date;
}

/** Stores a challenge, and deletes up to 100 expired ones so the table never piles up. */
export async function insertChallenge(
  db: Queryable,
  c: Omit<ChallengeRow, 'expiresAt'> & { now: Date; expiresAt: Date },
): Promise<void> {
  await db`
    with expired as (
      select id from auth.webauthn_challenges where expires_at <= ${c.now}
      order by expires_at limit 100 for update skip locked
    ), purged as (
      delete from auth.webauthn_challenges where id in (select id from expired)
    )
    insert into auth.webauthn_challenges (id, purpose, challenge, user_id, session_id, passkey_name, created_at, expires_at)
    values (${c.id}, ${c.purpose}, ${c.challenge}, ${c.userId}, ${c.sessionId}, ${c.passkeyName}, ${c.now}, ${c.expiresAt})`;
}

/** Takes (deletes) a live challenge of this purpose; undefined if unknown, used or expired. */
export async function takeChallenge(
  db: Queryable,
  id: string,
  purpose: ChallengePurpose,
  now: Date,
): Promise<ChallengeRow | undefined> {
  const [row] = await db<ChallengeRow[]>`
    delete from auth.webauthn_challenges
    where id = ${id} and purpose = ${purpose} and expires_at > ${now}
    returning id, purpose, challenge, user_id as "userId", session_id as "sessionId",
      passkey_name as "passkeyName", expires_at as "expiresAt"`;
  return row;
}

/** Stores a new passkey; undefined when its credential id is already registered. */
export async function insertPasskey(
  db: Queryable,
  p: Omit<PasskeyRow, 'id' | 'createdAt' | 'lastUsedAt'> & { now: Date },
): Promise<PasskeyRow | undefined> {
  const [row] = await db<PasskeyRow[]>`
    insert into auth.passkeys (user_id, credential_id, public_key, counter, transports, device_type, backed_up,
      aaguid, name, created_at)
    values (${p.userId}, ${p.credentialId}, ${p.publicKey}, ${p.counter}, ${p.transports}, ${p.deviceType},
      ${p.backedUp}, ${p.aaguid}, ${p.name}, ${p.now})
    on conflict (credential_id) do nothing
    returning ${passkeyColumns(db)}`;
  return row;
}

/** A user's passkeys, oldest first. */
export async function listPasskeys(db: Queryable, userId: string): Promise<PasskeyRow[]> {
  return db<PasskeyRow[]>`
    select ${passkeyColumns(db)} from auth.passkeys where user_id = ${userId} order by created_at, id`;
}

/** The passkey with this credential id, locked until the transaction ends (its counter moves once at a time). */
export async function lockPasskeyByCredentialId(db: Queryable, credentialId: string): Promise<PasskeyRow | undefined> {
  const [row] = await db<PasskeyRow[]>`
    select ${passkeyColumns(db)} from auth.passkeys where credential_id = ${credentialId} for update`;
  return row;
}

export async function recordPasskeyUse(
  db: Queryable,
  u: { id: string; counter: number; backedUp: boolean; now: Date },
): Promise<void> {
  await db`
    update auth.passkeys set counter = ${u.counter}, backed_up = ${u.backedUp}, last_used_at = ${u.now}
    where id = ${u.id}`;
}

export async function renamePasskey(
  db: Queryable,
  userId: string,
  id: string,
  name: string,
): Promise<PasskeyRow | undefined> {
  const [row] = await db<PasskeyRow[]>`
    update auth.passkeys set name = ${name} where id = ${id} and user_id = ${userId}
    returning ${passkeyColumns(db)}`;
  return row;
}

/** Deletes a passkey of this user; false when the user has no such passkey. */
export async function deletePasskey(db: Queryable, userId: string, id: string): Promise<boolean> {
  const result = await db`delete from auth.passkeys where id = ${id} and user_id = ${userId}`;
  return result.count > 0;
}
