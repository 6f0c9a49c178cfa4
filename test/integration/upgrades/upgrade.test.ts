// Upgrading a project in use: a database on an older platform schema (today's migrations up to a
// cut-off), holding users, keys, records and a stored file, is started with the remaining
// migrations. Plinth backs it up first and says where; afterwards data, keys and sessions are the
// same, and `plinth upgrade check` says what was pending and then that nothing is. A failing
// migration leaves the database exactly as it was (but for the listed backup), the start is
// refused with a message naming the migration and that backup, and the backup restores.
import { copyFile, mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { ManualClock } from '../../../src/core/clock.js';
import { systemMigrationsDir } from '../../../src/core/migrator.js';
import { createDeps, type Deps } from '../../../src/deps.js';
import { loadPlatformKeys, type PlatformKeys } from '../../../src/modules/secrets/index.js';
import { UpgradeFailedError } from '../../../src/upgrade.js';
import { createDatabase, testConfig } from '../../harness/test-app.js';
import { projectDir, runCli } from '../cli/cli-runner.js';

/**
 * How many of today's platform migrations the "previous release" lacks. The fixture is made by
 * today's server on the older schema, so only migrations today's code starts without can be cut:
 * the newest (the insights rollup, which the server samples in the background) is one; the one
 * before it (realtime change capture) is read at start.
 */
const NEWER = 1;
/** "1 platform migration", "2 platform migrations": as the server and CLI say it. */
const newerCount = `${NEWER} platform migration${NEWER === 1 ? '' : 's'}`;
const password = 'upgrade-password-1';
const fileBytes = Buffer.from([0x50, 0x4b, 0, 1, 2, 3, 254, 255]);

interface Running {
  app: FastifyInstance;
  deps: Deps;
  keys: PlatformKeys;
  log: string[];
  close(): Promise<void>;
}

let databaseUrl: string;
let storageDir: string;
let oldDir: string;
let today: string[];
let server: Running | undefined;
const clock = new ManualClock();

async function start(migrationsDir?: string): Promise<Running> {
  const log: string[] = [];
  const config = testConfig(databaseUrl, { STORAGE_DIR: storageDir });
  const deps = await createDeps(config, { clock, migrationsDir, onUpgrade: (line) => log.push(line) });
  const keys = await loadPlatformKeys(deps);
  const app = await buildApp(deps, { logger: false, keys });
  await app.ready();
  return {
    app,
    deps,
    keys,
    log,
    async close() {
      await app.close();
      await deps.close();
    },
  };
}

async function call(options: InjectOptions) {
  const res = await (server as Running).app.inject(options);
  const json = res.headers['content-type']?.toString().includes('json') ? res.json() : undefined;
  return Object.assign(res, { json });
}
const apiKey = () => ({ 'x-api-key': (server as Running).keys.apiKey });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Everything a project holds, as one digest per part (the backups' own list aside). */
async function projectState(sql: Deps['sql']) {
  const [row] = await sql`
    select
      (select string_agg(name || ':' || checksum, ',' order by name) from system.migrations) as migrations,
      (select string_agg(n.nspname || '.' || c.relname || ':' || c.relkind::text, ',' order by n.nspname, c.relname)
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast') and n.nspname not like 'pg_temp%'
          and n.nspname not like 'pg_toast_temp%') as relations,
      (select string_agg(table_schema || '.' || table_name || '.' || column_name || ':' || data_type, ','
                         order by table_schema, table_name, column_name)
         from information_schema.columns where table_schema not in ('pg_catalog', 'information_schema')) as columns,
      (select md5(string_agg(u::text, ',' order by u.id)) from auth.users u) as users,
      (select md5(string_agg(s::text, ',' order by s.key)) from system.secrets s) as secrets,
      (select md5(string_agg(n::text, ',' order by n.id)) from public.notes n) as notes,
      (select md5(string_agg(o.bucket || o.key || o.blob_id, ',' order by o.key)) from storage.objects o) as objects`;
  return row;
}

let user: { email: string; accessToken: string; refreshToken: string; id: string };
let keysBefore: { apiKey: string; anonKey: string };

beforeAll(async () => {
  databaseUrl = await createDatabase('empty');
  storageDir = await mkdtemp(path.join(tmpdir(), 'plinth-upgrade-storage-'));
  // The previous release: today's platform migrations up to the cut-off.
  today = (await readdir(systemMigrationsDir)).filter((n) => n.endsWith('.sql')).sort();
  oldDir = await mkdtemp(path.join(tmpdir(), 'plinth-upgrade-old-'));
  for (const name of today.slice(0, -NEWER))
    await copyFile(path.join(systemMigrationsDir, name), path.join(oldDir, name));

  server = await start(oldDir);
  // A first start on an empty database is no upgrade: nothing to back up.
  expect(server.log).toEqual([]);
  keysBefore = { apiKey: server.keys.apiKey, anonKey: server.keys.anonKey };
  await server.deps.sql.unsafe(`
    create table public.notes (id bigint generated always as identity primary key,
      owner uuid not null default auth.uid(), body text not null);
    alter table public.notes enable row level security;
    create policy own on public.notes for all to authenticated using (owner = auth.uid()) with check (owner = auth.uid());
    grant select, insert on public.notes to authenticated;`);
  const email = `upgrader-${Date.now()}@example.com`;
  const signUp = await call({
    method: 'POST',
    url: '/api/auth/users?client_type=mobile',
    payload: { email, password },
  });
  expect(signUp.statusCode, signUp.body).toBe(200);
  user = { email, ...signUp.json, id: signUp.json.user.id };
  const note = await call({
    method: 'POST',
    url: '/api/database/records/notes',
    headers: { ...bearer(user.accessToken), prefer: 'return=representation' },
    payload: [{ body: 'written before the upgrade' }],
  });
  expect(note.statusCode, note.body).toBe(201);
  const bucket = await call({
    method: 'POST',
    url: '/api/storage/buckets',
    headers: apiKey(),
    payload: { bucketName: 'files', isPublic: false },
  });
  expect(bucket.statusCode, bucket.body).toBe(201);
  const put = await call({
    method: 'PUT',
    url: '/api/storage/buckets/files/objects/report.bin',
    headers: { ...apiKey(), 'content-type': 'application/octet-stream' },
    payload: fileBytes,
  });
  expect(put.statusCode, put.body).toBe(200);
});

afterAll(async () => {
  await server?.close();
});

async function listen(): Promise<string> {
  const running = server as Running;
  await running.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(running.app.server.address() as AddressInfo).port}`;
}

describe('upgrading to the current platform migrations', () => {
  const newer = () => today.slice(-NEWER);

  it('plinth upgrade check lists what this version would apply', async () => {
    const url = await listen();
    const res = await runCli(await projectDir(), ['upgrade', 'check'], {
      PLINTH_URL: url,
      PLINTH_API_KEY: keysBefore.apiKey,
    });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(`${newerCount} pending on ${url}:`);
    for (const name of newer()) expect(res.stdout).toContain(`  ${name}\n`);
    expect(res.stdout).not.toContain(today[0]);
  });

  it('backs the database up first, says where, and applies the rest', async () => {
    await (server as Running).close();
    server = await start();
    const { log } = server;
    expect(log[0]).toBe(
      `Upgrade: ${newerCount} (${newer().join(', ')}) pending; backing up the database before applying ${NEWER === 1 ? 'it' : 'them'}.`,
    );
    expect(log[1]).toMatch(
      /^Upgrade: backup before-upgrade-\S+ \(id [0-9a-f-]{36}\) taken before the upgrade, stored at \//,
    );
    expect(log[2]).toBe(`Upgrade: applied ${newerCount} (${newer().join(', ')}).`);
    const id = /\(id ([0-9a-f-]{36})\)/.exec(log[1] as string)?.[1];
    const location = /stored at (\S+)$/.exec(log[1] as string)?.[1] as string;
    expect(location.startsWith(storageDir)).toBe(true);

    const { json } = await call({ method: 'GET', url: '/api/database/backups', headers: apiKey() });
    expect(json.backups).toEqual([
      expect.objectContaining({
        id,
        status: 'completed',
        signed: true,
        name: expect.stringMatching(/^before-upgrade-/),
      }),
    ]);
    const status = await call({ method: 'GET', url: '/api/health/platform-migrations', headers: apiKey() });
    expect(status.json).toEqual({ applied: today, pending: [] });
  });

  it('keeps the keys, the sessions, the users, the records and the files', async () => {
    expect({ apiKey: server?.keys.apiKey, anonKey: server?.keys.anonKey }).toEqual(keysBefore);
    // A token signed before the upgrade still verifies; the refresh token still rotates.
    const current = await call({ method: 'GET', url: '/api/auth/sessions/current', headers: bearer(user.accessToken) });
    expect(current.statusCode, current.body).toBe(200);
    expect(current.json.user.id).toBe(user.id);
    const refreshed = await call({
      method: 'POST',
      url: '/api/auth/refresh?client_type=mobile',
      payload: { refreshToken: user.refreshToken },
    });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    const signIn = await call({
      method: 'POST',
      url: '/api/auth/sessions?client_type=mobile',
      payload: { email: user.email, password },
    });
    expect(signIn.statusCode, signIn.body).toBe(200);
    const notes = await call({
      method: 'GET',
      url: '/api/database/records/notes?select=body',
      headers: bearer(signIn.json.accessToken),
    });
    expect(notes.json).toEqual([{ body: 'written before the upgrade' }]);
    const file = await call({ method: 'GET', url: '/api/storage/buckets/files/objects/report.bin', headers: apiKey() });
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload).toEqual(fileBytes);
  });

  it('plinth upgrade check then finds nothing pending, and an older version sees it is behind', async () => {
    const url = await listen();
    const env = { PLINTH_URL: url, PLINTH_API_KEY: keysBefore.apiKey };
    const now = await runCli(await projectDir(), ['upgrade', 'check'], env);
    expect(now.code).toBe(0);
    expect(now.stdout).toBe(`Up to date: ${url} has every platform migration of this version (${today.length}).\n`);
    const older = await runCli(await projectDir(), ['upgrade', 'check', '--dir', oldDir, '--json'], env);
    expect(older.code).toBe(0);
    expect(JSON.parse(older.stdout)).toMatchObject({ pending: [], newerThanThisVersion: newer() });
  });
});

describe('a failing platform migration', () => {
  let brokenDir: string;
  const first = '20261201400000_upgrade_probe.sql';
  const failing = '20261201400001_upgrade_broken.sql';

  beforeAll(async () => {
    brokenDir = await mkdtemp(path.join(tmpdir(), 'plinth-upgrade-broken-'));
    await mkdir(brokenDir, { recursive: true });
    for (const name of today) await copyFile(path.join(systemMigrationsDir, name), path.join(brokenDir, name));
    // The first applies (a table, changed rows); the second fails half-way through its file.
    await writeFile(
      path.join(brokenDir, first),
      "create table system.upgrade_probe (id int);\nupdate public.notes set body = body || ' (changed)';\n",
    );
    await writeFile(path.join(brokenDir, failing), 'alter table auth.users add column nickname text;\nselect 1 / 0;\n');
  });

  it('changes nothing, refuses to start, and names the migration and the backup', async () => {
    const sql = (server as Running).deps.sql;
    const before = await projectState(sql);
    const backupsBefore = await call({ method: 'GET', url: '/api/database/backups', headers: apiKey() });
    await (server as Running).close();
    server = undefined;

    const log: string[] = [];
    clock.advance(60_000); // backups are named by their time
    const config = testConfig(databaseUrl, { STORAGE_DIR: storageDir });
    const failure = await createDeps(config, { clock, migrationsDir: brokenDir, onUpgrade: (l) => log.push(l) }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(UpgradeFailedError);
    const message = (failure as Error).message;
    expect(log, message).toHaveLength(2);
    const id = /\(id ([0-9a-f-]{36})\)/.exec(log[1] as string)?.[1] as string;
    expect(id).toBeDefined();
    expect(message.split('\n')).toEqual([
      `Plinth did not start: Platform migration ${failing} failed: division by zero`,
      'Nothing was changed: the pending platform migrations run in one transaction, which was rolled back, so the database is as it was before this start.',
      expect.stringMatching(
        new RegExp(`^The backup taken before the attempt is before-upgrade-\\S+ \\(id ${id}\\), stored at /`),
      ),
      `To go back: start the previous Plinth version (it runs on this database as it is); to put that backup's data back there: plinth backup restore ${id}`,
      'See docs/upgrading.md.',
    ]);

    // The version before (today's migrations) starts on the database as it was.
    server = await start();
    expect(server.log).toEqual([]);
    expect(await projectState(server.deps.sql)).toEqual(before);
    const backups = await call({ method: 'GET', url: '/api/database/backups', headers: apiKey() });
    expect(backups.json.backups).toHaveLength(backupsBefore.json.backups.length + 1);

    // The backup the message names restores there, as the message says.
    const restored = await call({ method: 'POST', url: `/api/database/backups/${id}/restore`, headers: apiKey() });
    expect(restored.statusCode, restored.body).toBe(200);
    expect(await projectState(server.deps.sql)).toEqual(before);
  });

  it('UPGRADE_BACKUP=off applies without a backup and says so', async () => {
    await (server as Running).close();
    server = undefined;
    const log: string[] = [];
    const config = testConfig(databaseUrl, { STORAGE_DIR: storageDir, UPGRADE_BACKUP: 'off' });
    const failure = await createDeps(config, { clock, migrationsDir: brokenDir, onUpgrade: (l) => log.push(l) }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(log).toEqual([
      `Upgrade: applying 2 platform migrations (${first}, ${failing}) without a backup (UPGRADE_BACKUP=off).`,
    ]);
    expect((failure as Error).message.split('\n').slice(2)).toEqual([
      'To go back: start the previous Plinth version (it runs on this database as it is).',
      'See docs/upgrading.md.',
    ]);
    server = await start();
  });
});
