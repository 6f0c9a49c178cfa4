// The CLI against a hostile or broken server: `fetch` writes only inside migrations/, whatever
// names the server's migration history carries (a real HTTP peer on loopback answers them); `logs
// tail` prints the server's log lines with their control characters escaped.
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectDir, runCli, spawnCli } from './cli-runner.js';

const history = [
  { version: '20260101000001', name: '../../escaped', statements: ['select 1'], createdAt: '2026-01-01T00:00:01.000Z' },
  {
    version: '20260101000002',
    name: 'x/../../../escaped-too',
    statements: ['select 2'],
    createdAt: '2026-01-01T00:00:02.000Z',
  },
  {
    version: '2026\u001b[2J',
    name: 'clear\u001b]0;owned\u0007',
    statements: ['select 0'],
    createdAt: '2026-01-01T00:00:00.000Z',
  },
  { version: '20260101000003', name: 'fine', statements: ['select 3'], createdAt: '2026-01-01T00:00:03.000Z' },
];
/** ANSI (clear screen, set title, CSI in C1), a carriage return that would hide what came before, a tab and a newline. */
const HOSTILE_LOG = 'info - \u001b[2J\u001b]0;owned\u0007hidden\rshown\u009b31m\tand\nnext';
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url?.startsWith('/api/logs/stream')) {
      res.setHeader('content-type', 'text/event-stream');
      const line = { timestamp: '2026-01-01T00:00:00.000Z', source: 'functions', eventMessage: HOSTILE_LOG };
      return res.end(`data: ${JSON.stringify(line)}\n\n`);
    }
    res.setHeader('content-type', 'application/json');
    if (req.url?.startsWith('/api/database/migrations'))
      res.end(JSON.stringify({ migrations: [...history].reverse() }));
    else res.end(JSON.stringify({}));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('fetch never writes outside migrations/', () => {
  it('skips remote names that are not valid migration names (path traversal) and writes the rest', async () => {
    const dir = await projectDir();
    const res = await runCli(dir, ['db', 'migrations', 'fetch'], { PLINTH_URL: url, PLINTH_API_KEY: 'ik_whatever' });
    expect(res.code, res.stderr).toBe(0);
    expect(existsSync(path.join(path.dirname(dir), 'escaped-too.sql'))).toBe(false);
    expect(await readdir(path.join(dir, 'migrations'))).toEqual(['20260101000003_fine.sql']);
    expect(res.stdout).toContain('Skipped version 20260101000001 ("../../escaped"): not a valid migration name');
    expect(res.stdout.trim().split('\n').at(-1)).toBe('Fetched 4 applied migrations: 1 written, 3 skipped.');
  });

  it('prints remote names and versions escaped, so a server cannot send terminal control sequences', async () => {
    const res = await runCli(await projectDir(), ['db', 'migrations', 'fetch'], {
      PLINTH_URL: url,
      PLINTH_API_KEY: 'ik_whatever',
    });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(res.stdout).toContain('Skipped version "2026\\u001b[2J" ("clear\\u001b]0;owned\\u0007")');
  });
});

describe('logs tail', () => {
  it('prints control characters escaped (tabs and newlines kept), as text and as JSON', async () => {
    const env = { PLINTH_URL: url, PLINTH_API_KEY: 'ik_whatever' };
    // The tail reconnects when a stream ends: each run is read up to the end of its first stream.
    const tailOnce = async (args: string[]) => {
      const tail = spawnCli(await projectDir(), args, env);
      try {
        await tail.waitFor('stderr', 'The log stream ended');
        return tail.output().stdout;
      } finally {
        tail.child.kill('SIGINT');
        await tail.exited;
      }
    };
    const text = await tailOnce(['logs', 'tail']);
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(text).toBe(
      '2026-01-01T00:00:00.000Z [functions] info - \\u001b[2J\\u001b]0;owned\\u0007hidden\\u000dshown\\u009b31m\tand\nnext\n',
    );
    const json = await tailOnce(['--json', 'logs', 'tail']);
    expect(json).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(JSON.parse(json).eventMessage).toBe(HOSTILE_LOG);
  });
});
