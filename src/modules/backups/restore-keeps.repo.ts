// What a restore keeps from the project as it is, instead of the archive's copy: the platform's
// keys (the secrets module says which), the admin's sessions with their refresh tokens, and which
// sessions have ended. An older backup, or an archive someone planted, must never bring back a
// key rotated since or a session ended since, nor make a server forget a revocation.
import type { TransactionSql } from 'postgres';
import { isPlatformKey } from '../secrets/index.js';

async function platformKeyNames(tx: TransactionSql): Promise<string[]> {
  const rows = await tx<{ key: string }[]>`select key from system.secrets`;
  return rows.map((r) => r.key).filter(isPlatformKey);
}

/**
 * Copies the rows to keep aside (temporary tables, gone at commit); call before the platform
 * tables are emptied. `putBack` (after the archive's rows are loaded, user triggers still off)
 * drops the archive's platform keys and admin sessions and puts the kept rows in their place.
 */
export async function keepCurrentPlatformRows(tx: TransactionSql): Promise<{ putBack(): Promise<void> }> {
  await tx`create temp table restore_kept_secrets on commit drop as
             select * from system.secrets where key = any(${await platformKeyNames(tx)})`;
  await tx`create temp table restore_kept_admin_sessions on commit drop as
             select * from auth.sessions where admin_subject is not null`;
  await tx`create temp table restore_kept_admin_tokens on commit drop as
             select t.* from auth.refresh_tokens t join auth.sessions s on s.id = t.session_id
              where s.admin_subject is not null`;
  await tx`create temp table restore_kept_revocations on commit drop as select * from auth.session_revocations`;
  await tx`create temp table restore_kept_ended on commit drop as
             select id, revoked_at, revoked_reason from auth.sessions where revoked_at is not null`;
  return {
    async putBack() {
      await tx`delete from system.secrets where key = any(${await platformKeyNames(tx)})`;
      await tx`insert into system.secrets select * from pg_temp.restore_kept_secrets`;
      // Their refresh tokens go with them (on delete cascade).
      await tx`delete from auth.sessions where admin_subject is not null`;
      await tx`insert into auth.sessions select * from pg_temp.restore_kept_admin_sessions`;
      await tx`insert into auth.refresh_tokens select * from pg_temp.restore_kept_admin_tokens`;
      await tx`insert into auth.session_revocations select * from pg_temp.restore_kept_revocations
               on conflict (session_id) do nothing`;
      // A user session ended since the backup (a sign-out after a theft, say) stays ended.
      await tx`update auth.sessions s set revoked_at = k.revoked_at, revoked_reason = k.revoked_reason
                 from pg_temp.restore_kept_ended k where s.id = k.id and s.revoked_at is null`;
    },
  };
}
