// A table only signed-in users may read: what a forged or revoked user token must not open.
import type { Sql } from '../../src/core/db.js';

export const LEDGER_NOTE = 'only for signed-in users';

export async function createLedger(sql: Sql): Promise<void> {
  await sql.unsafe(`
    create table public.ledger (id bigserial primary key, note text);
    alter table public.ledger enable row level security;
    create policy ledger_read on public.ledger for select to authenticated using (true);
    insert into public.ledger (note) values ('${LEDGER_NOTE}');
  `);
}
