// The real `plinth` binary printing the generated types against a listening Plinth: `db types`
// writes the Database type to stdout (ready for `> database.types.ts`); a refused key is one line
// on stderr and a non-zero exit code.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';
import { projectDir, runCli } from './cli-runner.js';

let t: TestApp;
let url: string;

beforeAll(async () => {
  t = await startTestApp();
  await t.deps.sql.unsafe(`create table public.gadgets (id serial primary key, label text not null)`);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(() => t.close());

describe('plinth db types', () => {
  it('prints the Database type of the project to stdout', async () => {
    const res = await runCli(await projectDir(), ['db', 'types'], { PLINTH_URL: url, PLINTH_API_KEY: t.apiKey });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('export type Database = {');
    expect(res.stdout).toMatch(/gadgets: \{\n\s+Row: \{\n\s+id: number\n\s+label: string\n/);
  });

  it('a refused key is one line on stderr and exit code 1', async () => {
    const res = await runCli(await projectDir(), ['db', 'types'], {
      PLINTH_URL: url,
      PLINTH_API_KEY: `ik_${'0'.repeat(64)}`,
    });
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(/^Error: The server refused the API key \(401\)/);
  });
});
