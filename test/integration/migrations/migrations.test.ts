// The migrations API as a client sees it: history, the version rule, the SQL guard, all-or-nothing
// execution, search_path, the schema cache seeing new tables at once, and the advisory lock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
const key = () => ({ 'x-api-key': t.apiKey });
const apply = (version: string, sql: string, name = 'change') =>
  t.request({ method: 'POST', url: '/api/database/migrations', headers: key(), payload: { version, name, sql } });
const history = async () =>
  (await t.request({ method: 'GET', url: '/api/database/migrations', headers: key() })).json.migrations as {
    version: string;
    name: string;
    statements: string[];
  }[];
const tableExists = async (name: string) =>
  (await t.deps.sql<{ exists: boolean }[]>`select to_regclass(${`public.${name}`}) is not null as exists`)[0]!.exists;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('applying and listing', () => {
  it('applies a migration, answers 201 with its statements and lists it', async () => {
    const res = await apply(
      '1',
      "create table notes (id int primary key, body text);\n-- a comment\ninsert into notes values (1, 'a;b');",
      'create-notes',
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json).toEqual({
      version: '1',
      name: 'create-notes',
      statements: ['create table notes (id int primary key, body text)', "insert into notes values (1, 'a;b')"],
      createdAt: expect.any(String),
      message: 'Migration executed successfully',
    });
    expect(new Date(res.json.createdAt).toISOString()).toBe(res.json.createdAt);
    expect((await history())[0]).toMatchObject({ version: '1', name: 'create-notes' });
  });

  it('keeps a function body with semicolons as one statement', async () => {
    const sql = `create function add_one(x int) returns int language plpgsql as $$ begin return x + 1; end; $$;
select 1`;
    const res = await apply('2', sql);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json.statements).toEqual([
      'create function add_one(x int) returns int language plpgsql as $$ begin return x + 1; end; $$',
      'select 1',
    ]);
  });

  it('compares versions as integers: 10 is newer than 9, and 9 is then refused with 409', async () => {
    expect((await apply('9', 'select 9')).statusCode).toBe(201);
    expect((await apply('10', 'select 10')).statusCode).toBe(201);
    const again = await apply('9', 'select 9');
    expect(again.statusCode).toBe(409);
    expect(again.json).toMatchObject({
      error: 'DATABASE_MIGRATION_ALREADY_EXISTS',
      message: 'Migration version must be newer than the latest applied migration.',
      statusCode: 409,
    });
    const same = await apply('10', 'select 10');
    expect(same.statusCode).toBe(409);
    expect((await history()).map((m) => m.version).slice(0, 3)).toEqual(['10', '9', '2']);
  });

  it('accepts versions far beyond 64-bit integers, up to 64 digits', async () => {
    expect((await apply('20261121120000', 'select 1')).statusCode).toBe(201);
    expect((await apply('9'.repeat(30), 'select 1')).statusCode).toBe(201);
    expect((await apply(`1${'0'.repeat(63)}`, 'select 1')).statusCode).toBe(201);
    expect((await history())[0]!.version).toBe(`1${'0'.repeat(63)}`);
  });
});

describe('bad requests', () => {
  it.each([
    ['a version of 65 digits', { version: '1'.repeat(65), name: 'x', sql: 'select 1' }],
    ['a version that is not numeric', { version: '12a', name: 'x', sql: 'select 1' }],
    ['a negative version', { version: '-5', name: 'x', sql: 'select 1' }],
    ['an empty version', { version: '', name: 'x', sql: 'select 1' }],
    ['a name with capitals', { version: '5', name: 'Add', sql: 'select 1' }],
    ['a name with underscores', { version: '5', name: 'add_notes', sql: 'select 1' }],
    ['an empty name', { version: '5', name: '  ', sql: 'select 1' }],
    ['empty SQL', { version: '5', name: 'x', sql: '   ' }],
    ['a missing field', { version: '5', name: 'x' }],
    ['an unknown field', { version: '5', name: 'x', sql: 'select 1', down: 'drop table x' }],
  ])('%s → 400 VALIDATION_ERROR', async (_label, payload) => {
    const res = await t.request({ method: 'POST', url: '/api/database/migrations', headers: key(), payload });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json).toMatchObject({ error: 'VALIDATION_ERROR', statusCode: 400 });
  });

  it('SQL of comments only is empty → 400', async () => {
    const res = await apply(`1${'0'.repeat(63)}`, '-- nothing here\n/* nor here */ ;');
    expect(res.statusCode).toBe(400);
    expect(res.json.message).toBe('The SQL contains no statements.');
  });

  it('SQL that does not parse → 403 FORBIDDEN naming the error (api-contract §3.2), nothing recorded', async () => {
    const before = (await history()).length;
    const res = await apply('99'.repeat(32), 'create table ok_table (id int); create tabel broken (id int);');
    expect(res.statusCode).toBe(403);
    expect(res.json).toMatchObject({ error: 'FORBIDDEN', statusCode: 403 });
    expect(res.json.message).toMatch(/does not parse: syntax error at or near "tabel"/);
    expect(await tableExists('ok_table')).toBe(false);
    expect((await history()).length).toBe(before);
  });
});

describe('the guard refuses dangerous statements before anything runs', () => {
  const NEXT = '2'.repeat(64);
  it.each([
    ['BEGIN', 'begin; create table g1 (id int); commit;', /Transaction control statements are not allowed \(BEGIN\)/],
    ['COMMIT', 'create table g1 (id int); commit;', /\(COMMIT\)/],
    ['ROLLBACK', 'create table g1 (id int); rollback;', /\(ROLLBACK\)/],
    ['START TRANSACTION', 'start transaction; create table g1 (id int);', /\(START TRANSACTION\)/],
    ['SAVEPOINT', 'create table g1 (id int); savepoint s1;', /\(SAVEPOINT\)/],
    ['RELEASE SAVEPOINT', 'release savepoint s1;', /\(RELEASE SAVEPOINT\)/],
    ['ROLLBACK TO SAVEPOINT', 'rollback to savepoint s1;', /\(ROLLBACK TO SAVEPOINT\)/],
    ['END', 'create table g1 (id int); end;', /\(COMMIT\)/],
    ['PREPARE TRANSACTION', "prepare transaction 'x';", /\(PREPARE TRANSACTION\)/],
    ['CREATE ROLE', 'create role intruder login;', /Role management is not allowed/],
    ['ALTER ROLE', 'alter role anon superuser;', /Role management is not allowed/],
    ['DROP ROLE', 'drop role anon;', /Role management is not allowed/],
    ['GRANT a role', 'grant project_admin to anon;', /Granting roles is not allowed/],
    ['CREATE DATABASE', 'create database other;', /Creating databases is not allowed/],
    ['DROP DATABASE', 'drop database other;', /Dropping databases is not allowed/],
    ['ALTER DATABASE', 'alter database other set work_mem = 1;', /Altering databases is not allowed/],
    ['SET ROLE', 'set role anon;', /Changing role is not allowed/],
    ['SET LOCAL ROLE', 'set local role anon;', /Changing role is not allowed/],
    ['SET SESSION AUTHORIZATION', 'set session authorization anon;', /Changing session_authorization/],
    ['SET search_path', 'set search_path = system;', /Changing search_path/],
    ['SET statement_timeout', 'set statement_timeout = 0;', /Changing statement_timeout/],
    ['RESET ALL', 'reset all;', /RESET ALL is not allowed/],
    ['set_config()', "create table g1 as select set_config('role', 'anon', true);", /set_config\(\) is not allowed/],
    [
      'set_config() nested in a function body call',
      "select 1 where exists (select pg_catalog.set_config('search_path', 'x', false));",
      /set_config/,
    ],
    ['ALTER SYSTEM', 'alter system set work_mem = 1;', /ALTER SYSTEM/],
    ['COPY from a file', "copy notes from '/etc/passwd';", /COPY is not allowed/],
    ['DISCARD', 'discard all;', /DISCARD/],
  ])('%s → 403 FORBIDDEN (api-contract §3.2), nothing applied', async (_label, sql, message) => {
    const before = (await history()).length;
    const res = await apply(NEXT, sql);
    expect(res.statusCode, res.body).toBe(403);
    expect(res.json).toMatchObject({ error: 'FORBIDDEN', statusCode: 403, nextActions: expect.any(String) });
    expect(res.json.message).toMatch(message);
    expect(await tableExists('g1')).toBe(false);
    expect((await history()).length).toBe(before);
  });
});

describe('all or nothing', () => {
  it('a failing statement leaves no trace, not even of earlier statements, and no history row', async () => {
    const before = await history();
    const res = await apply(
      '3'.repeat(64),
      'create table first_one (id int); insert into first_one values (1); insert into missing_table values (1);',
    );
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject({ error: 'VALIDATION_ERROR' });
    expect(res.json.message).toMatch(/^Statement 3 failed: relation "missing_table" does not exist/);
    expect(res.json.details).toMatchObject({ statement: 3, code: '42P01' });
    expect(await tableExists('first_one')).toBe(false);
    expect(await history()).toEqual(before);
  });

  it('runs with search_path public', async () => {
    const res = await apply('4'.repeat(64), "create table path_probe as select current_setting('search_path') as path");
    expect(res.statusCode, res.body).toBe(201);
    const [row] = await t.deps.sql`select path from public.path_probe`;
    expect(row!.path).toBe('public');
  });

  it("session settings a migration SETs do not leak into the server's pooled connections", async () => {
    const res = await apply('5'.repeat(64), "set datestyle = 'SQL, DMY'; create table leak_probe (id int);");
    expect(res.statusCode, res.body).toBe(201);
    const styles = await Promise.all(Array.from({ length: 12 }, () => t.deps.sql`show datestyle`));
    for (const [row] of styles) expect(row!.DateStyle).not.toBe('SQL, DMY');
  });
});

describe('the records API sees the new schema as soon as POST returns', () => {
  it('a new table, then a new column on a table the records API already read', async () => {
    const records = (url: string) => t.request({ method: 'GET', url, headers: key() });
    expect((await records('/api/database/records/gadgets')).statusCode).toBe(404);
    expect(
      (
        await apply(
          '6'.repeat(64),
          "create table gadgets (id int primary key, label text); insert into gadgets values (1, 'one');",
        )
      ).statusCode,
    ).toBe(201);
    const read = await records('/api/database/records/gadgets');
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json).toEqual([{ id: 1, label: 'one' }]);

    expect(
      (await apply('7'.repeat(64), "alter table gadgets add column colour text not null default 'red';")).statusCode,
    ).toBe(201);
    const withColumn = await records('/api/database/records/gadgets?select=id,colour');
    expect(withColumn.statusCode, withColumn.body).toBe(200);
    expect(withColumn.json).toEqual([{ id: 1, colour: 'red' }]);
  });
});

describe('every server hears of the change', () => {
  it('announces the new schema version with NOTIFY plinth_schema once the migration commits', async () => {
    const [row] = await t.deps.sql<{ version: string }[]>`select version::text from system.schema_version`;
    const before = row!.version;
    let heard!: (payload: string) => void;
    const notified = new Promise<string>((resolve) => (heard = resolve));
    const listener = await t.deps.sql.listen('plinth_schema', (payload) => heard(payload));
    try {
      expect((await apply(`${'7'.repeat(63)}8`, 'create table announced (id int);')).statusCode).toBe(201);
      expect(BigInt(await notified)).toBeGreaterThan(BigInt(before));
    } finally {
      await listener.unlisten();
    }
  });

  it('another server on the same database serves the new table', async () => {
    const other = await t.startAnotherServer();
    try {
      const read = () => other.app.inject({ method: 'GET', url: '/api/database/records/shared_table', headers: key() });
      expect((await read()).statusCode).toBe(404);
      expect(
        (await apply(`${'7'.repeat(63)}9`, 'create table shared_table (id int); insert into shared_table values (42);'))
          .statusCode,
      ).toBe(201);
      const res = await read();
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual([{ id: 42 }]);
    } finally {
      await other.close();
    }
  });
});

describe('the advisory lock serialises concurrent applies', () => {
  it('two POSTs of one version at once: one 201, one 409, one history row', async () => {
    const version = '8'.repeat(64);
    const results = await Promise.all([
      apply(version, 'create table race_a (id int); select pg_sleep(0.2);', 'race-a'),
      apply(version, 'create table race_b (id int); select pg_sleep(0.2);', 'race-b'),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    const rows = (await history()).filter((m) => m.version === version);
    expect(rows).toHaveLength(1);
    expect(await tableExists('race_a')).toBe(rows[0]!.name === 'race-a');
    expect(await tableExists('race_b')).toBe(rows[0]!.name === 'race-b');
  });
});

describe('dry run', () => {
  const dryRun = (sql: string) =>
    t.request({ method: 'POST', url: '/api/database/migrations/dry-run', headers: key(), payload: { sql } });

  it('reports statements and risks and always rolls back', async () => {
    const res = await dryRun('create table dry_table (id int); alter table notes drop column body; drop table notes;');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json).toMatchObject({ valid: true, statementCount: 3, riskLevel: 'DANGER' });
    expect(res.json.statements).toEqual([
      'create table dry_table (id int)',
      'alter table notes drop column body',
      'drop table notes',
    ]);
    expect(res.json.riskFactors.map((f: { code: string }) => f.code)).toEqual([
      'DESTRUCTIVE_DATA_LOSS',
      'DESTRUCTIVE_DATA_LOSS',
    ]);
    expect(await tableExists('dry_table')).toBe(false);
    expect(await tableExists('notes')).toBe(true);
  });

  it.each([
    ['safe SQL', 'create table dry_safe (id int)', { valid: true, riskLevel: 'SAFE', riskFactors: [] }],
    ['a rename', 'alter table notes rename to notes2', { valid: true, riskLevel: 'WARNING' }],
    [
      'an empty script',
      '-- nothing',
      { valid: false, statementCount: 0, riskFactors: [expect.objectContaining({ code: 'EMPTY_SQL' })] },
    ],
    [
      'an empty string',
      '',
      { valid: false, statementCount: 0, riskFactors: [expect.objectContaining({ code: 'EMPTY_SQL' })] },
    ],
    [
      'transaction control',
      'begin; select 1; commit;',
      {
        valid: false,
        riskLevel: 'DANGER',
        riskFactors: [
          expect.objectContaining({ code: 'GUARD_VIOLATION' }),
          expect.objectContaining({ code: 'GUARD_VIOLATION' }),
        ],
      },
    ],
    [
      'a syntax error',
      'selec 1',
      { valid: false, riskFactors: [expect.objectContaining({ code: 'SYNTAX_OR_EXECUTION_ERROR' })] },
    ],
    [
      'an execution error',
      'insert into nowhere values (1)',
      { valid: false, error: expect.stringMatching(/relation "nowhere" does not exist/) },
    ],
  ])('%s', async (_label, sql, expected) => {
    const res = await dryRun(sql);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json).toMatchObject(expected);
    expect(await tableExists('dry_safe')).toBe(false);
    expect(await tableExists('notes2')).toBe(false);
  });
});

describe('dry runs are not limited per IP (api-contract Part A item 16)', () => {
  it('an admin gets 40 dry runs from one IP within 15 minutes, all answered 200', async () => {
    const dryRunFrom = (remoteAddress: string) =>
      t.request({
        method: 'POST',
        url: '/api/database/migrations/dry-run',
        headers: key(),
        remoteAddress,
        payload: { sql: 'select 1' },
      });
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await dryRunFrom('10.66.0.1')).statusCode);
    expect(statuses).toEqual(Array.from({ length: 40 }, () => 200));
  });
});
