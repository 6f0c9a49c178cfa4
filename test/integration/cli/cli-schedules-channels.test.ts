// `plinth schedules` and `plinth channels` against a listening Plinth (issue 39: neither had a
// CLI): create, list, update (by name or pattern as well as by id), run, runs and delete, each
// checked through the admin API too; every `schedules --help` example is accepted; a name two
// schedules share and an unknown pattern are refused with what to do.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../harness/free-port.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';
import { projectDir, runCli } from './cli-runner.js';

vi.setConfig({ testTimeout: 120_000 });

let t: TestApp;
let baseUrl: string;
let dir: string;
const env = () => ({ PLINTH_URL: baseUrl, PLINTH_API_KEY: t.apiKey });
const plinth = (...args: string[]) => runCli(dir, args, env());
const api = async (method: string, url: string) =>
  (await t.request({ method: method as 'GET', url, headers: { 'x-api-key': t.apiKey } })).json;
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  // No server fires the schedules on its own: runs happen only when the test asks.
  t = await startTestApp({ env: { API_BASE_URL: baseUrl, SCHEDULES_POLL_MS: '0' } });
  await t.app.listen({ port, host: '127.0.0.1' });
  dir = await projectDir();
}, 60_000);
afterAll(() => t.close());

/** A shell line's words, quotes removed (the help examples quote cron expressions and JSON). */
const words = (line: string) =>
  (line.match(/'[^']*'|"[^"]*"|\S+/g) ?? []).map((w) => w.replace(/^(['"])(.*)\1$/, '$2'));

describe('plinth schedules', () => {
  it('creates with a name, lists, pauses by name, runs, shows runs, deletes', async () => {
    const created = await plinth(
      'schedules',
      'create',
      'cli-report',
      '--cron',
      '0 3 * * *',
      '--time-zone',
      'Europe/Paris',
      '--function',
      'report',
      '--header',
      'X-Kind: nightly',
      '--body',
      '{"kind":"nightly"}',
    );
    expect(created.code, created.stderr).toBe(0);
    const id = new RegExp(`^Created schedule cli-report \\((${UUID})\\): function report, next run \\S+\\n$`).exec(
      created.stdout,
    )?.[1];
    expect(id, created.stdout).toBeDefined();
    expect(await api('GET', `/api/schedules/${id}`)).toMatchObject({
      name: 'cli-report',
      cronSchedule: '0 3 * * *',
      timeZone: 'Europe/Paris',
      functionSlug: 'report',
      httpMethod: 'POST',
      headers: { 'X-Kind': 'nightly' },
      body: { kind: 'nightly' },
      isActive: true,
    });

    const list = await plinth('schedules', 'list');
    expect(list.stdout.split('\n')[0]).toMatch(/^id\s+name\s+cron\s+timeZone\s+target\s+active\s+nextRun$/);
    expect(list.stdout).toMatch(
      new RegExp(`${id}\\s+cli-report\\s+0 3 \\* \\* \\*\\s+Europe/Paris\\s+function report\\s+true`),
    );
    const json = JSON.parse((await plinth('--json', 'schedules', 'list')).stdout);
    expect(json).toEqual(expect.arrayContaining([expect.objectContaining({ id, name: 'cli-report' })]));

    const paused = await plinth('schedules', 'update', 'cli-report', '--pause');
    expect(paused.stdout).toBe(`Updated schedule cli-report (${id}): paused\n`);
    expect(await api('GET', `/api/schedules/${id}`)).toMatchObject({ isActive: false, nextRun: null });

    expect((await plinth('schedules', 'runs', 'cli-report')).stdout).toBe('No runs yet.\n');
    // The function does not exist here: the run fails, and is recorded.
    const run = await plinth('schedules', 'run', id!);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Run failed \(\d+\) in \d+ ms/);
    const runs = await plinth('schedules', 'runs', 'cli-report');
    expect(runs.stdout.split('\n')[0]).toMatch(/^executedAt\s+status\s+statusCode\s+durationMs\s+message$/);
    expect(runs.stdout.trim().split('\n')).toHaveLength(2);
    expect((await api('GET', `/api/schedules/${id}/logs`)).totalCount).toBe(1);

    const deleted = await plinth('schedules', 'delete', 'cli-report');
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toBe(`Schedule deleted successfully (${id})\n`);
    expect(
      (await t.request({ method: 'GET', url: `/api/schedules/${id}`, headers: { 'x-api-key': t.apiKey } })).statusCode,
    ).toBe(404);
  });

  it('refuses what it cannot send, and passes on the server’s refusals', async () => {
    const noCron = await plinth('schedules', 'create', 'no-cron', '--function', 'report');
    expect(noCron.code).toBe(1);
    expect(noCron.stderr).toMatch(/^Error: A schedule needs --cron/);
    const noTarget = await plinth('schedules', 'create', 'no-target', '--cron', '0 3 * * *');
    expect(noTarget.stderr).toMatch(/^Error: Give the target of each run: --function <slug> or --function-url <url>/);
    const badCron = await plinth('schedules', 'create', 'bad-cron', '--cron', 'every day', '--function', 'report');
    expect(badCron.code).toBe(1);
    expect(badCron.stderr.trim().split('\n')).toHaveLength(1);
    const asJson = await plinth(
      '--json',
      'schedules',
      'create',
      'bad-cron',
      '--cron',
      'every day',
      '--function',
      'report',
    );
    expect(JSON.parse(asJson.stderr)).toMatchObject({
      error: 'SCHEDULE_INVALID_CRON',
      nextActions: expect.any(String),
    });
    const shortName = await plinth('schedules', 'create', 'ab', '--cron', '0 3 * * *', '--function', 'report');
    expect(shortName.stderr).toMatch(/name: must be at least 3 characters/);

    for (let i = 0; i < 2; i++) {
      expect((await plinth('schedules', 'create', 'twin', '--cron', '0 3 * * *', '--function', 'report')).code).toBe(0);
    }
    const ambiguous = await plinth('schedules', 'update', 'twin', '--pause');
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toMatch(
      new RegExp(`^Error: 2 schedules are named "twin": ${UUID}, ${UUID}\\. Give the id of the one you mean\\.\\n$`),
    );
    const unknown = await plinth('schedules', 'runs', 'nobody');
    expect(unknown.stderr).toMatch(/^Error: No schedule is named "nobody"\. List them with `plinth schedules list`/);
  });

  it('every `schedules --help` example is accepted by the server', async () => {
    const help = await plinth('schedules', '--help');
    const examples = (help.stdout.split('\nExamples:\n')[1] ?? '')
      .split('\n')
      .filter((line) => line.startsWith('  $ plinth '))
      .map((line) => words(line.replace('  $ plinth ', '')));
    expect(examples.length).toBeGreaterThan(3);
    for (const example of examples) {
      const res = await plinth(...example);
      expect(res.code, `${example.join(' ')}: ${res.stderr}`).toBe(0);
    }
  });
});

describe('plinth channels', () => {
  it('creates, lists, disables by pattern, and deletes a channel pattern', async () => {
    const created = await plinth(
      'channels',
      'create',
      'chat:%',
      '--description',
      'chat rooms',
      '--webhook',
      'https://hooks.example.com/chat',
    );
    expect(created.code, created.stderr).toBe(0);
    const id = new RegExp(`^Created channel chat:% \\((${UUID})\\)\\n$`).exec(created.stdout)?.[1];
    expect(id, created.stdout).toBeDefined();
    expect(await api('GET', `/api/realtime/channels/${id}`)).toMatchObject({
      pattern: 'chat:%',
      description: 'chat rooms',
      webhookUrls: ['https://hooks.example.com/chat'],
      enabled: true,
    });

    const list = await plinth('channels', 'list');
    expect(list.stdout.split('\n')[0]).toMatch(/^id\s+pattern\s+enabled\s+description\s+webhooks$/);
    expect(list.stdout).toMatch(
      new RegExp(`${id}\\s+chat:%\\s+true\\s+chat rooms\\s+https://hooks\\.example\\.com/chat`),
    );

    const disabled = await plinth('channels', 'update', 'chat:%', '--disable', '--no-webhooks');
    expect(disabled.stdout).toBe(`Updated channel chat:% (${id}), disabled\n`);
    expect(await api('GET', `/api/realtime/channels/${id}`)).toMatchObject({ enabled: false, webhookUrls: [] });

    const deleted = await plinth('channels', 'delete', 'chat:%');
    expect(deleted.stdout).toBe(`Channel deleted: chat:% (${id})\n`);
    expect(await api('GET', '/api/realtime/channels')).toEqual([]);
    expect((await plinth('channels', 'list')).stdout).toMatch(/^No channels: /);
  });

  it('refuses an unknown pattern and a bad one, with what to do', async () => {
    const unknown = await plinth('channels', 'delete', 'nothing:%');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      'Error: No channel pattern is "nothing:%". List them with `plinth channels list` and give a pattern or an id from it.\n',
    );
    const bad = await plinth('channels', 'create', 'bad pattern!');
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(await api('GET', '/api/realtime/channels')).toEqual([]);
  });
});
