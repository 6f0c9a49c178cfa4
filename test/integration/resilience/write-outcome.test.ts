// A records insert whose answer is lost (the database stalls past the request deadline, then
// commits) says OUTCOME_UNKNOWN, not "not completed, retry"; and Idempotency-Key makes the retry
// safe: the same key (per caller, per route, for a day) answers the first outcome instead of
// inserting again, 409 while the first is still running, 422 for a different request.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { ManualClock } from '../../../src/core/clock.js';
import { guardOf } from '../../../src/core/db.js';
import { createDeps, type Deps } from '../../../src/deps.js';
import { loadPlatformKeys } from '../../../src/modules/secrets/index.js';
import { startDatabaseRelay, type DatabaseRelay } from '../../harness/tcp-relay.js';
import { bearer, startTestApp, testConfig, type TestApp } from '../../harness/test-app.js';
import { waitFor } from './fault-driver.js';

const GATE = 77_001;
let t: TestApp;
let admin: postgres.Sql;
let relay: DatabaseRelay;
let stalled: { deps: Deps; app: Awaited<ReturnType<typeof buildApp>> };

beforeAll(async () => {
  t = await startTestApp();
  admin = postgres(t.databaseUrl, { max: 2, onnotice: () => {} });
  await admin.unsafe(`
    create table public.notes (id bigserial primary key, note text not null);
    create function public.gated_insert() returns trigger language plpgsql as $$
    begin
      if new.note like 'gated%' then perform pg_advisory_xact_lock(${GATE}); end if;
      return new;
    end $$;
    create trigger gated before insert on public.notes for each row execute function public.gated_insert();
    create policy anyone on public.notes for all to anon, authenticated using (true) with check (true);
    grant select, insert on public.notes to anon, authenticated;
    grant usage on sequence public.notes_id_seq to anon, authenticated;
  `);
  // A second server on the same database, reached through a relay that can hold PostgreSQL's replies.
  relay = await startDatabaseRelay(t.databaseUrl);
  const deps = await createDeps(testConfig(relay.databaseUrl, { DB_POOL_SIZE: '2', REQUEST_TIMEOUT_MS: '1000' }), {
    clock: new ManualClock(),
  });
  stalled = { deps, app: await buildApp(deps, { logger: false, keys: await loadPlatformKeys(deps) }) };
  await stalled.app.ready();
});

afterAll(async () => {
  relay?.delayReplies(0);
  await stalled?.app.close();
  await stalled?.deps.close();
  await relay?.close();
  await admin?.end();
  await t?.close();
});

const insert = (
  app: { inject: TestApp['app']['inject'] },
  note: string,
  options: { key?: string; token?: string } = {},
) =>
  app.inject({
    method: 'POST',
    url: '/api/database/records/notes',
    headers: {
      ...bearer(options.token ?? t.anonKey),
      prefer: 'return=representation',
      ...(options.key ? { 'idempotency-key': options.key } : {}),
    },
    payload: [{ note }],
  });

const rowsWith = async (note: string) =>
  (await admin<{ id: string }[]>`select id from public.notes where note = ${note}`).length;

describe('a write whose answer is lost', () => {
  it('answers 503 OUTCOME_UNKNOWN (not "not completed") when the database commits after the deadline', async () => {
    relay.delayReplies(2_500);
    let res: Awaited<ReturnType<typeof insert>>;
    try {
      res = await insert(stalled.app, 'late commit');
    } finally {
      relay.delayReplies(0);
    }
    expect(res.statusCode, res.body).toBe(503);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(res.json()).toMatchObject({
      error: 'OUTCOME_UNKNOWN',
      statusCode: 503,
      message: expect.stringMatching(/may or may not have taken effect/),
      nextActions: expect.stringMatching(/Idempotency-Key/),
    });
    // It did commit: a blind retry would have inserted it twice.
    await waitFor(async () => (await rowsWith('late commit')) === 1, 10_000, 'the late commit');
  });

  it('a read past its deadline is still plain 503 SERVICE_UNAVAILABLE', async () => {
    relay.delayReplies(2_500);
    let res: Awaited<ReturnType<typeof insert>>;
    try {
      res = await stalled.app.inject({ method: 'GET', url: '/api/database/records/notes', headers: bearer(t.anonKey) });
    } finally {
      relay.delayReplies(0);
    }
    expect(res.statusCode).toBe(503);
    expect(res.json().error).toBe('SERVICE_UNAVAILABLE');
  });

  it('a retry with the same Idempotency-Key answers the first outcome instead of inserting again', async () => {
    // The earlier tests' late answers settled: a connection is free at once.
    const guard = guardOf(stalled.deps.sql);
    await waitFor(() => guard.stats().active === 0, 10_000, 'the pool to be idle');
    // Every statement answers at once but COMMIT, whose answer comes after the deadline.
    relay.delayRepliesAfter('commit', 2_500);
    let first: Awaited<ReturnType<typeof insert>>;
    try {
      first = await insert(stalled.app, 'keyed late commit', { key: 'retry-key-1' });
    } finally {
      relay.delayReplies(0);
    }
    expect(first.json().error).toBe('OUTCOME_UNKNOWN');
    await waitFor(async () => (await rowsWith('keyed late commit')) === 1, 10_000, 'the late commit');

    const retry = await insert(stalled.app, 'keyed late commit', { key: 'retry-key-1' });
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    const [stored] = await admin<{ id: string }[]>`select id from public.notes where note = 'keyed late commit'`;
    expect(retry.json()).toEqual([{ id: Number(stored!.id), note: 'keyed late commit' }]);
    expect(await rowsWith('keyed late commit')).toBe(1);
  });
});

describe('Idempotency-Key on records inserts', () => {
  it('answers 409 with Retry-After while the first request with the key runs, then its outcome', async () => {
    const gate = await admin.reserve();
    await gate`select pg_advisory_lock(${GATE})`;
    let first: Promise<Awaited<ReturnType<typeof insert>>> | undefined;
    try {
      first = insert(t.app, 'gated once', { key: 'in-flight-key' });
      await waitFor(
        async () => (await admin`select 1 from pg_stat_activity where wait_event = 'advisory'`).length > 0,
        10_000,
        'the first insert to wait in its trigger',
      );
      const during = await insert(t.app, 'gated once', { key: 'in-flight-key' });
      expect(during.statusCode, during.body).toBe(409);
      expect(during.headers['retry-after']).toMatch(/^\d+$/);
      expect(during.json()).toMatchObject({ error: 'IDEMPOTENCY_KEY_IN_FLIGHT', statusCode: 409 });
    } finally {
      await gate`select pg_advisory_unlock(${GATE})`;
      gate.release();
    }
    const answered = await first!;
    expect(answered.statusCode, answered.body).toBe(201);
    const after = await insert(t.app, 'gated once', { key: 'in-flight-key' });
    expect(after.statusCode).toBe(201);
    expect(after.json()).toEqual(answered.json());
    expect(await rowsWith('gated once')).toBe(1);
  });

  it('keeps keys per caller, refuses a key reused for another request (422), and forgets it after a day', async () => {
    const user = await t.signUp();
    const a = await insert(t.app, 'per caller', { key: 'shared-key' });
    const b = await insert(t.app, 'per caller', { key: 'shared-key', token: user.accessToken });
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(await rowsWith('per caller')).toBe(2);

    const other = await insert(t.app, 'another note', { key: 'shared-key' });
    expect(other.statusCode, other.body).toBe(422);
    expect(other.json()).toMatchObject({ error: 'IDEMPOTENCY_KEY_REUSED', statusCode: 422 });
    expect(await rowsWith('another note')).toBe(0);

    t.clock.advance(24 * 60 * 60 * 1000 + 1_000);
    const later = await insert(t.app, 'per caller', { key: 'shared-key' });
    expect(later.statusCode).toBe(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(await rowsWith('per caller')).toBe(3);
    // The user's expired key (never used again) was swept by that insert: keys do not pile up.
    const [expired] = await admin<{ n: number }[]>`
      select count(*)::int as n from system.idempotency_keys where expires_at <= ${t.clock.now()}`;
    expect(expired?.n).toBe(0);
  });

  it('refuses a malformed key with 400 and writes nothing', async () => {
    const res = await insert(t.app, 'bad key', { key: 'x'.repeat(256) });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'VALIDATION_ERROR', nextActions: expect.any(String) });
    expect(await rowsWith('bad key')).toBe(0);
  });
});
