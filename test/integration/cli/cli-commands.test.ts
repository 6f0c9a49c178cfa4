// The real `plinth` binary against a listening Plinth with its function runtime: functions
// (deploy with a syntax error at its line, list, invoke, delete), secrets, db query/seed/reset,
// storage cp/ls/rm with the progress bar, logs tail of one function, backups, and --json answers
// and one-line errors carrying the server's nextActions on every failure.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFunctionsApp, type FunctionsApp } from '../../harness/functions-app.js';
import { projectDir, runCli, spawnCli } from './cli-runner.js';

// Each test spawns several processes (npm/npx here), slow on a busy machine: time bound, not speed.
vi.setConfig({ testTimeout: 120_000 });

let t: FunctionsApp;
const env = () => ({ PLINTH_URL: t.baseUrl, PLINTH_API_KEY: t.apiKey });
const plinth = (dir: string, ...args: string[]) => runCli(dir, args, env());
const admin = () => ({ 'x-api-key': t.apiKey });

beforeAll(async () => {
  t = await startFunctionsApp();
}, 60_000);
afterAll(() => t.close());

/** An app folder holding the given files. */
async function appDir(files: Record<string, string> = {}): Promise<string> {
  const dir = await projectDir();
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), content);
  }
  return dir;
}

describe('functions', () => {
  it('deploys from functions/<slug>.ts, lists, invokes, redeploys, deletes', async () => {
    const dir = await appDir({
      'functions/hello.ts': 'export default (req: Request) => Response.json({ hello: "world", method: req.method });\n',
    });
    const created = await plinth(dir, 'functions', 'deploy', 'hello');
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(
      /^Created hello \(version 1, active\): http:\/\/127\.0\.0\.1:\d+\/functions\/hello\n$/,
    );

    const list = await plinth(dir, 'functions', 'list');
    expect(list.stdout.split('\n')[0]).toMatch(/^slug\s+name\s+status\s+version\s+updatedAt$/);
    expect(list.stdout).toMatch(/hello\s+hello\s+active\s+1/);
    const json = await plinth(dir, '--json', 'functions', 'list');
    expect(JSON.parse(json.stdout)).toEqual([expect.objectContaining({ slug: 'hello', status: 'active' })]);

    const invoked = await plinth(dir, 'functions', 'invoke', 'hello', '--data', '{"a":1}');
    expect(invoked.code, invoked.stderr).toBe(0);
    expect(JSON.parse(invoked.stdout)).toEqual({ hello: 'world', method: 'POST' });

    await writeFile(path.join(dir, 'other.js'), 'export default () => new Response("v2");\n');
    const updated = await plinth(dir, 'functions', 'deploy', 'hello', 'other.js');
    expect(updated.stdout).toMatch(/^Updated hello \(version 2, active\)/);
    expect((await plinth(dir, 'functions', 'invoke', 'hello', '-X', 'GET')).stdout).toBe('v2\n');

    const deleted = await plinth(dir, 'functions', 'delete', 'hello');
    expect(deleted.stdout).toBe('Function hello deleted successfully\n');
    const again = await plinth(dir, 'functions', 'delete', 'hello');
    expect(again.code).toBe(1);
    expect(again.stderr.trim().split('\n')).toHaveLength(1);
    expect(again.stderr).toMatch(/^Error: .*not found/i);
  });

  it('a syntax error is shown at its file, line and column, with the server’s nextActions; nothing is stored', async () => {
    const dir = await appDir({
      'functions/broken.ts': 'export default () => {\n  const ok = 1;\n  return new Response(ok +);\n};\n',
    });
    const res = await plinth(dir, 'functions', 'deploy', 'broken');
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      /^Error: functions\/broken\.ts:3(:\d+)?: The function code could not be loaded: .*Fix the code and deploy again; nothing was stored\.\n$/,
    );
    const asJson = await plinth(dir, '--json', 'functions', 'deploy', 'broken');
    expect(asJson.code).toBe(1);
    expect(JSON.parse(asJson.stderr)).toMatchObject({
      error: 'FUNCTION_DEPLOY_FAILED',
      nextActions: 'Fix the code and deploy again; nothing was stored.',
      details: { line: 3 },
    });
    const stored = await t.request({ method: 'GET', url: '/api/functions/broken', headers: admin() });
    expect(stored.statusCode).toBe(404);
  });

  it('logs tail --function prints that function’s invocations as they happen', async () => {
    const dir = await appDir({ 'functions/tailed.ts': 'export default () => new Response("ok");\n' });
    expect((await plinth(dir, 'functions', 'deploy', 'tailed')).code).toBe(0);
    const tail = spawnCli(dir, ['logs', 'tail', '--function', 'tailed'], env());
    try {
      await tail.waitFor('stderr', 'Tailing logs of function tailed');
      // The stream is subscribed before the banner is printed; the invocation comes after it.
      expect((await plinth(dir, 'functions', 'invoke', 'tailed')).stdout).toBe('ok\n');
      await tail.waitFor('stdout', '/functions/tailed');
      expect(tail.output().stdout).toMatch(/^\d{4}-\d\d-\d\dT\S+ \[functions\] POST \/functions\/tailed 200/m);
    } finally {
      tail.child.kill('SIGINT');
      await tail.exited;
    }
  });
});

describe('secrets', () => {
  it('set creates then replaces, list shows keys without values, unset removes', async () => {
    const dir = await appDir();
    expect((await plinth(dir, 'secrets', 'set', 'STRIPE_KEY', 'sk_one')).stdout).toBe(
      'Secret STRIPE_KEY has been created successfully\n',
    );
    expect((await plinth(dir, 'secrets', 'set', 'STRIPE_KEY', 'sk_two')).stdout).toBe(
      'Secret STRIPE_KEY has been updated successfully\n',
    );
    const revealed = await t.request({ method: 'GET', url: '/api/secrets/STRIPE_KEY', headers: admin() });
    expect(revealed.json.value).toBe('sk_two');
    const list = await plinth(dir, 'secrets', 'list');
    expect(list.stdout).toMatch(/STRIPE_KEY\s+true/);
    expect(list.stdout).not.toContain('sk_two');
    expect((await plinth(dir, 'secrets', 'unset', 'STRIPE_KEY')).code).toBe(0);
    const keys = JSON.parse((await plinth(dir, '--json', 'secrets', 'list')).stdout).filter(
      (s: { key: string; isActive: boolean }) => s.key === 'STRIPE_KEY' && s.isActive,
    );
    expect(keys).toEqual([]);
    const bad = await plinth(dir, 'secrets', 'set', 'lower-case', 'x');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^Error: .*A-Z, 0-9 and _/);
  });
});

describe('db query, seed and reset', () => {
  it('query prints a table or JSON; a failing statement is one line and exit 1', async () => {
    const dir = await appDir();
    const table = await plinth(dir, 'db', 'query', "select 1 as id, 'rex' as name union all select 2, 'tom'");
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toBe('id  name\n1   rex\n2   tom\n(2 rows)\n');
    const json = await plinth(dir, 'db', 'query', 'select 42 as answer', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ rows: [{ answer: 42 }] });
    const failed = await plinth(dir, 'db', 'query', 'select * from no_such_table');
    expect(failed.code).toBe(1);
    expect(failed.stderr.trim().split('\n')).toHaveLength(1);
    expect(failed.stderr).toMatch(/^Error: .*no_such_table/);
  });

  it('seed runs a SQL file; reset refuses a remote URL and an unconfirmed run, then rebuilds from migrations/ and seed.sql', async () => {
    const dir = await appDir({
      'migrations/20260101000000_create-pets.sql': 'create table pets (id int primary key, name text not null);',
      'seed.sql': "insert into pets values (1, 'rex');\ninsert into pets values (2, 'tom');\n",
      'extra.sql': "insert into pets values (3, 'kit');",
    });
    expect((await plinth(dir, 'db', 'migrations', 'up', '--all')).code).toBe(0);
    const seeded = await plinth(dir, 'db', 'seed', 'seed.sql');
    expect(seeded.stdout).toBe('Seeded from seed.sql.\n');
    expect((await plinth(dir, 'db', 'seed', 'extra.sql')).code).toBe(0);
    await t.deps.sql.unsafe('create table scratch (id int)');

    const remote = await runCli(dir, ['db', 'reset', '--yes'], {
      PLINTH_URL: 'https://db.example.com',
      PLINTH_API_KEY: t.apiKey,
    });
    expect(remote.code).toBe(1);
    expect(remote.stderr).toBe(
      'Error: Refusing to reset https://db.example.com: it is not a local server (localhost/127.0.0.1). Pass --force if you really mean to wipe it.\n',
    );
    const unconfirmed = await plinth(dir, 'db', 'reset');
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stderr).toMatch(/not confirmed\. Run it in a terminal to confirm, or pass --yes\.\n$/);
    expect((await t.deps.sql`select count(*)::int as n from pets`)[0]!.n).toBe(3);

    const reset = await plinth(dir, 'db', 'reset', '--yes');
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toMatch(/, 1 migration applied, seeded from seed\.sql\.\n$/);
    expect(await t.deps.sql`select id, name from pets order by id`).toEqual([
      { id: 1, name: 'rex' },
      { id: 2, name: 'tom' },
    ]);
    expect((await t.deps.sql`select to_regclass('public.scratch') is null as gone`)[0]!.gone).toBe(true);
    const history = JSON.parse((await plinth(dir, '--json', 'db', 'migrations', 'list')).stdout);
    expect(history.migrations).toEqual([expect.objectContaining({ version: '20260101000000', status: 'applied' })]);
  });
});

describe('storage', () => {
  it('mb makes a bucket (an upload to a missing one says how), rb removes one', async () => {
    const dir = await appDir({ 'a.txt': 'a' });
    const toMissing = await plinth(dir, 'storage', 'cp', 'a.txt', 'ss://not-yet/a.txt');
    expect(toMissing.code).toBe(1);
    expect(toMissing.stderr).toMatch(/Bucket "not-yet" not found\..*plinth storage mb ss:\/\/not-yet/);

    const made = await plinth(dir, 'storage', 'mb', 'ss://not-yet', '--public');
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toBe('Made public bucket ss://not-yet.\n');
    expect((await plinth(dir, 'storage', 'cp', 'a.txt', 'ss://not-yet/a.txt')).code).toBe(0);
    const listed = await t.request({ method: 'GET', url: '/api/storage/buckets', headers: admin() });
    expect(listed.json).toContainEqual(expect.objectContaining({ name: 'not-yet', public: true }));

    const objectPath = await plinth(dir, 'storage', 'mb', 'ss://not-yet/key');
    expect(objectPath).toMatchObject({ code: 1, stderr: expect.stringMatching(/names an object, not a bucket/) });
    const again = await plinth(dir, 'storage', 'mb', 'not-yet');
    expect(again.code).toBe(1);

    const removed = await plinth(dir, 'storage', 'rb', 'not-yet');
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toBe('Removed bucket ss://not-yet.\n');
    const after = await t.request({ method: 'GET', url: '/api/storage/buckets', headers: admin() });
    expect(after.json).not.toContainEqual(expect.objectContaining({ name: 'not-yet' }));
  });

  it('cp uploads and downloads with a progress bar over 1 MB, ls lists, rm deletes', async () => {
    const created = await t.request({
      method: 'POST',
      url: '/api/storage/buckets',
      headers: admin(),
      payload: { bucketName: 'cli-files', isPublic: false },
    });
    expect(created.statusCode).toBe(201);
    const bytes = randomBytes(2 * 1024 * 1024 + 17);
    const small = 'hello';
    const dir = await appDir({ 'small.txt': small });
    await writeFile(path.join(dir, 'big.bin'), bytes);

    const up = await plinth(dir, 'storage', 'cp', 'big.bin', 'ss://cli-files/data/big.bin');
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toBe(`Uploaded big.bin to ss://cli-files/data/big.bin (${bytes.length} bytes).\n`);
    expect(up.stderr).toMatch(/upload \[#{30}\] 100% 2\.0\/2\.0 MB/);
    const upSmall = await plinth(dir, 'storage', 'cp', 'small.txt', 'ss://cli-files/');
    expect(upSmall.stderr).toBe('');

    const ls = await plinth(dir, 'storage', 'ls', 'ss://cli-files');
    expect(ls.stdout).toMatch(/data\/big\.bin\s+2097169/);
    expect(ls.stdout).toMatch(/small\.txt\s+5/);
    const buckets = JSON.parse((await plinth(dir, '--json', 'storage', 'ls')).stdout);
    expect(buckets.map((b: { name: string }) => b.name)).toContain('cli-files');

    const down = await plinth(dir, 'storage', 'cp', 'ss://cli-files/data/big.bin', 'copy.bin');
    expect(down.code, down.stderr).toBe(0);
    expect(down.stderr).toMatch(/download \[#{30}\] 100%/);
    expect((await readFile(path.join(dir, 'copy.bin'))).equals(bytes)).toBe(true);

    expect((await plinth(dir, 'storage', 'rm', 'ss://cli-files/data/big.bin', 'ss://cli-files/small.txt')).code).toBe(
      0,
    );
    expect((await plinth(dir, 'storage', 'ls', 'ss://cli-files')).stdout).toBe('No objects.\n');
    const missing = await plinth(dir, 'storage', 'cp', 'ss://cli-files/nope', 'x');
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('backup', () => {
  it('create waits for the stored backup, list shows it, restore brings the rows back', async () => {
    const dir = await appDir();
    await t.deps.sql.unsafe("create table keep (v text); insert into keep values ('before')");
    const created = await plinth(dir, '--json', 'backup', 'create', '--name', 'cli-test');
    expect(created.code, created.stderr).toBe(0);
    const backup = JSON.parse(created.stdout);
    expect(backup).toMatchObject({ name: 'cli-test', status: 'completed' });
    expect((await plinth(dir, 'backup', 'list')).stdout).toMatch(new RegExp(`${backup.id}\\s+cli-test\\s+completed`));

    await t.deps.sql`update keep set v = 'after'`;
    const refused = await plinth(dir, 'backup', 'restore', backup.id);
    expect(refused.code).toBe(1);
    const restored = await plinth(dir, 'backup', 'restore', backup.id, '--yes');
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toBe('Database restored successfully\n');
    expect(await t.deps.sql`select v from keep`).toEqual([{ v: 'before' }]);
  });

  it('download saves an archive and upload stores it as a backup, with progress bars; a damaged file is refused', async () => {
    const dir = await appDir();
    // Rows gzip cannot shrink much, so the archive passes the 1 MB progress-bar threshold.
    await t.deps.sql.unsafe(
      'create table bulk as select md5(i::text) || md5((i * 7)::text) as v from generate_series(1, 60000) i',
    );
    const made = JSON.parse((await plinth(dir, '--json', 'backup', 'create')).stdout);
    const down = await plinth(dir, 'backup', 'download', made.id, 'moved.gz');
    expect(down.code, down.stderr).toBe(0);
    expect(down.stdout).toMatch(
      new RegExp(`^Downloaded backup ${made.id} to moved\\.gz \\(${made.sizeBytes} bytes\\)\\.\n$`),
    );
    expect(down.stderr).toMatch(/download \[#{30}\] 100%/);
    const bytes = await readFile(path.join(dir, 'moved.gz'));
    expect(bytes.length).toBe(made.sizeBytes);

    const up = await plinth(dir, 'backup', 'upload', 'moved.gz', '--name', 'moved-in');
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toMatch(
      /^Uploaded moved\.gz as backup [0-9a-f-]{36} \(\d+ bytes\)\. Restore it with `plinth backup restore [0-9a-f-]{36}`\.\n$/,
    );
    expect(up.stderr).toMatch(/upload \[#{30}\] 100%/);
    const list = JSON.parse((await plinth(dir, '--json', 'backup', 'list')).stdout);
    const moved = list.find((b: { name: string }) => b.name === 'moved-in');
    expect(moved).toMatchObject({ status: 'completed', sizeBytes: bytes.length, importedAt: expect.any(String) });
    const again = await t.request({
      method: 'GET',
      url: `/api/database/backups/${moved.id}/download`,
      headers: admin(),
    });
    expect(again.rawPayload.equals(bytes)).toBe(true);

    // Cut short (found at its end), and not an archive at all (found at once, while it still streams).
    await writeFile(path.join(dir, 'cut.gz'), bytes.subarray(0, bytes.length - 4000));
    await writeFile(path.join(dir, 'random.gz'), randomBytes(3 * 1024 * 1024));
    for (const file of ['cut.gz', 'random.gz']) {
      const refused = await plinth(dir, 'backup', 'upload', file);
      expect(refused.code).toBe(1);
      const errors = refused.stderr.split('\n').filter((l) => l.startsWith('Error'));
      expect(errors).toEqual([
        expect.stringMatching(/^Error: The file is not a complete Plinth backup archive: .*Nothing was stored\./),
      ]);
    }
    // Without this project's signature: refused, unless --allow-unsigned (then stored as unsigned).
    const text = gunzipSync(bytes)
      .toString('latin1')
      .replace(/\{"end":true,"mac":"[0-9a-f]+"\}\n$/, '{"end":true}\n');
    await writeFile(path.join(dir, 'unsigned.gz'), gzipSync(Buffer.from(text, 'latin1')));
    const unsigned = await plinth(dir, 'backup', 'upload', 'unsigned.gz');
    expect(unsigned.code).toBe(1);
    expect(unsigned.stderr).toMatch(/^Error: The archive carries no signature of this project.*allowUnsigned=true/m);
    const after = JSON.parse((await plinth(dir, '--json', 'backup', 'list')).stdout);
    expect(after).toHaveLength(list.length);
    const forced = await plinth(dir, '--json', 'backup', 'upload', 'unsigned.gz', '--allow-unsigned');
    expect(forced.code, forced.stderr).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({ status: 'completed', signed: false });
    await t.deps.sql`drop table bulk`;
  });
});
