// A backup is one snapshot: taken while transfers move money between two tables, the restored
// tables still balance and match the ledger. A restore that fails midway (an archive cut short in
// the middle of a table, or garbage bytes) changes nothing: the project is as it was before.
import { Readable } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
const TOTAL = 100_000;

const asAdmin = (method: string, url: string, payload?: unknown) =>
  t.request({ method: method as 'GET', url, headers: { 'x-api-key': t.apiKey }, payload: payload as object });

async function waitCompleted(id: string) {
  await vi.waitFor(
    async () => {
      const { json } = await asAdmin('GET', '/api/database/backups');
      expect(json.backups.find((b: { id: string }) => b.id === id).status).toBe('completed');
    },
    { timeout: 60_000, interval: 20 },
  );
}

async function balances() {
  const [row] = await t.deps.sql<{ a: string; b: string; ledger: string; moved: string }[]>`
    select (select sum(balance) from public.account_a) as a, (select sum(balance) from public.account_b) as b,
           (select count(*) from public.ledger) as ledger, (select coalesce(sum(amount), 0) from public.ledger) as moved`;
  return { a: Number(row!.a), b: Number(row!.b), ledger: Number(row!.ledger), moved: Number(row!.moved) };
}

/** Replaces a backup's archive bytes in the blob store (what a damaged disk or bucket would do). */
async function replaceArchive(id: string, bytes: Buffer) {
  const blobId = `database-backup-${id}`;
  await t.deps.blobStore.remove(blobId);
  await t.deps.blobStore.stage(blobId, Readable.from([bytes]), Number.MAX_SAFE_INTEGER);
  await t.deps.blobStore.promote(blobId);
}

beforeAll(async () => {
  t = await startTestApp();
  await t.deps.sql.unsafe(`
    create table public.account_a (id int primary key, balance bigint not null);
    create table public.account_b (id int primary key, balance bigint not null);
    create table public.ledger (id bigserial primary key, account int not null, amount int not null);
    insert into public.account_a select i, ${TOTAL / 100} from generate_series(1, 100) i;
    insert into public.account_b select i, 0 from generate_series(1, 100) i;
    create table public.filler (id int primary key, payload text);
    insert into public.filler select i, repeat(md5(i::text), 8) from generate_series(1, 100000) i;
  `);
}, 60_000);
afterAll(() => t?.close());

describe('a backup under write load', () => {
  it('holds one consistent snapshot: the restored accounts balance and match the ledger', async () => {
    let stop = false;
    let committed = 0;
    const transfer = async (worker: number) => {
      for (let i = 0; !stop; i++) {
        const account = ((worker * 31 + i) % 100) + 1;
        await t.deps.sql.begin(async (tx) => {
          await tx`update public.account_a set balance = balance - 1 where id = ${account}`;
          await tx`insert into public.ledger (account, amount) values (${account}, 1)`;
          await tx`update public.account_b set balance = balance + 1 where id = ${account}`;
        });
        committed++;
      }
    };
    const workers = [1, 2, 3].map(transfer);
    await vi.waitFor(() => expect(committed).toBeGreaterThan(20), { timeout: 10_000, interval: 5 });
    const created = await asAdmin('POST', '/api/database/backups');
    expect(created.statusCode).toBe(201);
    const atStart = committed;
    await waitCompleted(created.json.id);
    const duringBackup = committed - atStart;
    stop = true;
    await Promise.all(workers);
    expect(duringBackup).toBeGreaterThan(0);

    const live = await balances();
    const restored = await asAdmin('POST', `/api/database/backups/${created.json.id}/restore`);
    expect(restored.statusCode).toBe(200);
    const back = await balances();
    expect(back.a + back.b).toBe(TOTAL);
    expect(back.b).toBe(back.moved);
    expect(back.ledger).toBe(back.moved);
    // The snapshot is older than the state at the end of the load.
    expect(back.ledger).toBeLessThan(live.ledger);
    const { n } = (await t.deps.sql`select count(*)::int as n from public.filler`)[0]!;
    expect(n).toBe(100_000);
  });
});

describe('a restore that fails midway', () => {
  it('leaves the project as it was (archive cut short inside a table, or not gzip at all)', async () => {
    const created = await asAdmin('POST', '/api/database/backups');
    await waitCompleted(created.json.id);
    const id = created.json.id as string;
    const archive = gunzipSync((await asAdmin('GET', `/api/database/backups/${id}/download`)).rawPayload);

    // After the backup: a table, rows, a user.
    await t.deps.sql.unsafe(`
      create table public.after_backup (id int primary key);
      insert into public.after_backup values (1), (2);
      delete from public.filler where id <= 10;
    `);
    const user = await t.signUp();
    const before = await balances();

    const cut = archive.indexOf('{"copy":"public.filler"');
    expect(cut).toBeGreaterThan(0);
    const truncated = archive.subarray(0, cut + 200_000);
    for (const bytes of [gzipSync(truncated), Buffer.from('not a gzip archive at all')]) {
      await replaceArchive(id, bytes);
      const failed = await asAdmin('POST', `/api/database/backups/${id}/restore`);
      expect(failed.statusCode).toBe(409);
      expect(failed.json.error).toBe('DATABASE_CONSTRAINT_VIOLATION');
      expect(failed.json.nextActions).toMatch(/Nothing was changed/);

      const { rows } = (await t.deps.sql`select count(*)::int as rows from public.after_backup`)[0]!;
      expect(rows).toBe(2);
      const { n } = (await t.deps.sql`select count(*)::int as n from public.filler`)[0]!;
      expect(n).toBe(100_000 - 10);
      expect(await balances()).toEqual(before);
      const signIn = await t.request({
        method: 'POST',
        url: '/api/auth/sessions?client_type=mobile',
        payload: { email: user.email, password: user.password },
      });
      expect(signIn.statusCode).toBe(200);
    }

    // The intact archive still restores, and the later table is then gone.
    await replaceArchive(id, gzipSync(archive));
    expect((await asAdmin('POST', `/api/database/backups/${id}/restore`)).statusCode).toBe(200);
    const { exists } = (await t.deps.sql`select to_regclass('public.after_backup') is not null as exists`)[0]!;
    expect(exists).toBe(false);
  });
});
