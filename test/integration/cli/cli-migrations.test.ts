// The real `plinth` binary applying, listing and fetching migrations against a listening Plinth:
// `up <target>` applies exactly one file in order, `--to`/`--all` validate the whole directory
// first, ordering refusals, and two `up --all` runs at once never apply a version twice.
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatVersion } from '../../../cli/migration-files.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';
import { projectDir, runCli } from './cli-runner.js';

let t: TestApp;
let url: string;
const env = () => ({ PLINTH_URL: url, PLINTH_API_KEY: t.apiKey });
const plinth = (dir: string, ...args: string[]) => runCli(dir, ['db', 'migrations', ...args], env());

/** Versions that keep increasing through the file (tests share one server and its history). */
let second = 0;
const v = () => formatVersion(new Date(Date.UTC(2026, 0, 1) + ++second * 1000));

const applied = async () =>
  (
    await t.deps.sql<
      { version: string; name: string }[]
    >`select version, name from system.custom_migrations order by version::numeric`
  ).map((r) => r.version);
const tableExists = async (name: string) =>
  (await t.deps.sql<{ exists: boolean }[]>`select to_regclass(${`public.${name}`}) is not null as exists`)[0]!.exists;

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(() => t.close());

describe('up <target> applies exactly one file, the next pending one', () => {
  it('by file name and by version, in order; the records API sees the table at once', async () => {
    const [a, b, c] = [v(), v(), v()];
    const dir = await projectDir({
      [`${a}_create-pets.sql`]:
        "create table pets (id int primary key, name text);\ninsert into pets values (1, 'rex');\n",
      [`${b}_add-age.sql`]: 'alter table pets add column age int;',
      [`${c}_add-owner.sql`]: 'alter table pets add column owner text;',
    });
    const first = await plinth(dir, 'up', `migrations/${a}_create-pets.sql`);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(`Applied migrations/${a}_create-pets.sql\n`);
    expect(await applied()).toContain(a);
    expect(await applied()).not.toContain(b);
    const records = await t.request({
      method: 'GET',
      url: '/api/database/records/pets',
      headers: { 'x-api-key': t.apiKey },
    });
    expect(records.json).toEqual([{ id: 1, name: 'rex' }]);

    const skipping = await plinth(dir, 'up', c);
    expect(skipping.code).toBe(1);
    expect(skipping.stderr).toBe(
      `Error: Migration ${c}_add-owner.sql is not the next pending local migration; apply ${b}_add-age.sql first (or use \`up --to ${c}_add-owner.sql\`).\n`,
    );

    expect((await plinth(dir, 'up', b)).code).toBe(0);
    const again = await plinth(dir, 'up', b);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      new RegExp(
        `^Error: Migration ${b}_add-age.sql is already applied remotely\\. Applied migrations are never edited`,
      ),
    );
    expect((await plinth(dir, 'up', `${c}_add-owner.sql`)).code).toBe(0);
    expect((await applied()).slice(-3)).toEqual([a, b, c]);
  });

  it('refuses a file older than the latest applied migration', async () => {
    const [old, latest] = [v(), v()];
    const dir = await projectDir({ [`${latest}_latest.sql`]: 'select 1;' });
    expect((await plinth(dir, 'up', latest)).code).toBe(0);
    await writeFile(path.join(dir, 'migrations', `${old}_late.sql`), 'create table late (id int);');
    const res = await plinth(dir, 'up', old);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(
      `Error: Migration ${old}_late.sql is older than the latest applied migration ${latest}; it can no longer be applied. Create a new migration with \`plinth db migrations new <name>\` instead.\n`,
    );
    expect(await tableExists('late')).toBe(false);
  });

  it('ignores unrelated invalid files, which --to and --all refuse', async () => {
    const target = v();
    const dir = await projectDir({
      [`${target}_fine.sql`]: 'create table fine (id int);',
      'notes.txt': 'todo',
      '2026_Bad.sql': 'select 1;',
    });
    for (const args of [['--all'], ['--to', target]]) {
      const refused = await plinth(dir, 'up', ...args);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        /^Error: Invalid migration file names in migrations\/: 2026_Bad\.sql, notes\.txt\. Names must be/,
      );
    }
    expect(await tableExists('fine')).toBe(false);
    const res = await plinth(dir, 'up', target);
    expect(res.code, res.stderr).toBe(0);
    expect(await tableExists('fine')).toBe(true);
  });

  it.each([
    ['an empty file', ''],
    ['a file of comments only', '-- create-thing\n-- Forward-only: once applied, this file is never edited.\n'],
  ])('refuses %s', async (_label, content) => {
    const version = v();
    const dir = await projectDir({ [`${version}_empty.sql`]: content });
    const res = await plinth(dir, 'up', version);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(
      `Error: migrations/${version}_empty.sql is empty (no SQL statements). Write the migration's SQL in it first.\n`,
    );
    expect(await applied()).not.toContain(version);
  });

  it.each([
    [
      'a target that is neither version nor file name',
      'latest',
      /is neither a 14-digit version nor a migration file name/,
    ],
    ['an impossible timestamp', '20261399000000', /is not a valid version: expected a UTC timestamp YYYYMMDDHHmmss/],
    ['a version with no local file', '20991231000000', /^Error: No local migration 20991231000000 in migrations\//],
    [
      'a file name with no local file',
      '20991231000000_ghost.sql',
      /^Error: No local migration 20991231000000_ghost\.sql/,
    ],
  ])('refuses %s', async (_label, target, message) => {
    const res = await plinth(await projectDir({ [`${v()}_x.sql`]: 'select 1;' }), 'up', target);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(message);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
  });

  it("a failing migration: one line with the statement's error, nothing applied", async () => {
    const version = v();
    const dir = await projectDir({
      [`${version}_broken.sql`]: 'create table half (id int);\ninsert into nowhere values (1);',
    });
    const res = await plinth(dir, 'up', version);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(
      `Error: Applying migrations/${version}_broken.sql failed: Statement 2 failed: relation "nowhere" does not exist Nothing was applied. Fix the statement and try again.\n`,
    );
    expect(await tableExists('half')).toBe(false);
    expect(await applied()).not.toContain(version);
  });

  it("a file with transaction control is refused by the server's guard", async () => {
    const version = v();
    const res = await plinth(
      await projectDir({ [`${version}_tx.sql`]: 'begin;\ncreate table txt (id int);\ncommit;' }),
      'up',
      version,
    );
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/failed: Transaction control statements are not allowed \(BEGIN\)/);
  });
});

describe('up --to and up --all', () => {
  it('--to applies pending files up to and including the target with progress; --all the rest', async () => {
    const [a, b, c] = [v(), v(), v()];
    const dir = await projectDir({
      [`${a}_one.sql`]: 'select 1;',
      [`${b}_two.sql`]: 'select 2;',
      [`${c}_three.sql`]: 'select 3;',
    });
    const to = await plinth(dir, 'up', '--to', `${b}_two.sql`);
    expect(to.code, to.stderr).toBe(0);
    expect(to.stdout).toBe(
      `[1/2] Applying migrations/${a}_one.sql\n[2/2] Applying migrations/${b}_two.sql\nApplied 2 migrations.\n`,
    );
    expect(await applied()).not.toContain(c);
    const all = await plinth(dir, 'up', '--all');
    expect(all.stdout).toBe(`[1/1] Applying migrations/${c}_three.sql\nApplied 1 migration.\n`);
    expect((await plinth(dir, 'up', '--all')).stdout).toBe('Nothing to apply: every local migration is applied.\n');
    const toApplied = await plinth(dir, 'up', '--to', a);
    expect(toApplied.code).toBe(1);
    expect(toApplied.stderr).toMatch(/is already applied remotely/);
  });

  it('validates the whole directory before applying anything: duplicate versions, empty files, never-applied old files', async () => {
    const [a, b] = [v(), v()];
    const dup = await plinth(
      await projectDir({
        [`${a}_one.sql`]: 'create table dup1 (id int);',
        [`${b}_x.sql`]: 'select 1;',
        [`${b}_y.sql`]: 'select 1;',
      }),
      'up',
      '--all',
    );
    expect(dup.code).toBe(1);
    expect(dup.stderr).toBe(
      `Error: Two migration files share version ${b}: ${b}_x.sql and ${b}_y.sql. Give one of them a new version.\n`,
    );
    const empty = await plinth(
      await projectDir({ [`${a}_one.sql`]: 'create table dup1 (id int);', [`${b}_empty.sql`]: '  \n' }),
      'up',
      '--to',
      b,
    );
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(new RegExp(`^Error: migrations/${b}_empty\\.sql is empty`));
    expect(await tableExists('dup1')).toBe(false);

    const latest = v();
    expect((await plinth(await projectDir({ [`${latest}_bump.sql`]: 'select 1;' }), 'up', latest)).code).toBe(0);
    const stranded = await plinth(
      await projectDir({ [`${a}_one.sql`]: 'create table dup1 (id int);', [`${v()}_new.sql`]: 'select 1;' }),
      'up',
      '--all',
    );
    expect(stranded.code).toBe(1);
    expect(stranded.stderr).toMatch(
      new RegExp(
        `^Error: migrations/${a}_one\\.sql is older than the latest applied migration ${latest} but never applied`,
      ),
    );
  });

  it('two `up --all` runs at once: the advisory lock serialises them and no version is applied twice', async () => {
    const files = Object.fromEntries(
      [v(), v(), v()].map((version, i) => [
        `${version}_race-${i}.sql`,
        `create table race_${version} (id int); select pg_sleep(0.1);`,
      ]),
    );
    const [one, two] = [await projectDir(files), await projectDir(files)];
    const results = await Promise.all([plinth(one, 'up', '--all'), plinth(two, 'up', '--all')]);
    expect(results.some((r) => r.code === 0)).toBe(true);
    for (const r of results.filter((x) => x.code !== 0)) {
      expect(r.stderr).toMatch(/failed: Migration version must be newer than the latest applied migration\./);
    }
    const versions = Object.keys(files).map((f) => f.slice(0, 14));
    const rows = await t.deps.sql`select version from system.custom_migrations where version = any(${versions})`;
    expect(rows.map((r) => r.version).sort()).toEqual(versions);
  });
});

describe('list and fetch', () => {
  it('list shows local and remote side by side: applied, pending, stranded, remote only', async () => {
    const [applied1, pending] = [v(), v()];
    const other = await projectDir({ [`${applied1}_shared.sql`]: 'select 1;' });
    expect((await plinth(other, 'up', applied1)).code).toBe(0);
    const dir = await projectDir({
      [`${applied1}_shared.sql`]: 'select 1;',
      [`${pending}_next.sql`]: 'select 2;',
      '20260101000000_old-local.sql': 'select 3;',
      'README.md': '',
    });
    const res = await plinth(dir, 'list');
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^VERSION\s+NAME\s+LOCAL\s+REMOTE\s+STATUS$/);
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${applied1}\\s+shared\\s+yes\\s+yes\\s+applied$`)));
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${pending}\\s+next\\s+yes\\s+no\\s+pending$`)));
    expect(lines).toContainEqual(
      expect.stringMatching(/^20260101000000\s+old-local\s+yes\s+no\s+not applied \(older than latest applied\)$/),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^\d+\s+create-pets\s+no\s+yes\s+remote only \(run fetch\)$/));
    expect(lines).toContain('invalid file name (ignored): README.md');
    expect(lines.at(-1)).toMatch(/^1 pending, \d+ applied, \d+ remote only\.$/);
  });

  it('fetch creates migrations/, writes one file per applied migration and skips existing exact filenames', async () => {
    const dir = await projectDir();
    const history = await t.request({
      method: 'GET',
      url: '/api/database/migrations',
      headers: { 'x-api-key': t.apiKey },
    });
    const remote = history.json.migrations as { version: string; name: string; statements: string[] }[];
    const pets = remote.find((m) => m.name === 'create-pets')!;
    const first = await plinth(dir, 'fetch');
    expect(first.code, first.stderr).toBe(0);
    const files = await readdir(path.join(dir, 'migrations'));
    expect(files.sort()).toEqual(remote.map((m) => `${m.version}_${m.name}.sql`).sort());
    expect(await readFile(path.join(dir, 'migrations', `${pets.version}_create-pets.sql`), 'utf8')).toBe(
      "create table pets (id int primary key, name text);\n\ninsert into pets values (1, 'rex');\n",
    );
    expect(first.stdout.trim().split('\n').at(-1)).toBe(
      `Fetched ${remote.length} applied migrations: ${remote.length} written, 0 skipped.`,
    );

    await writeFile(path.join(dir, 'migrations', `${pets.version}_create-pets.sql`), '-- my own copy\n');
    const second = await plinth(dir, 'fetch');
    expect(second.stdout).toContain(`Skipped migrations/${pets.version}_create-pets.sql (exists)`);
    expect(second.stdout.trim().split('\n').at(-1)).toBe(
      `Fetched ${remote.length} applied migrations: 0 written, ${remote.length} skipped.`,
    );
    expect(await readFile(path.join(dir, 'migrations', `${pets.version}_create-pets.sql`), 'utf8')).toBe(
      '-- my own copy\n',
    );
    expect((await plinth(dir, 'up', '--all')).stdout).toBe('Nothing to apply: every local migration is applied.\n');
    expect(existsSync(path.join(dir, 'migrations'))).toBe(true);
  });
});
