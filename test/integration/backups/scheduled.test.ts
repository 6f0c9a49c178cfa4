// Scheduled backups driven by the injected clock: the settings route validates the cron form, a
// due time fires one backup even with two servers polling, the backup expires after
// retentionDays and is then deleted, and manual backups never expire.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type Server, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let other: Server;
const HOUR = 3_600_000;
const asAdmin = (method: string, url: string, payload?: unknown) =>
  t.request({ method: method as 'GET', url, headers: { 'x-api-key': t.apiKey }, payload: payload as object });
const list = async () => (await asAdmin('GET', '/api/database/backups')).json.backups as Record<string, unknown>[];

beforeAll(async () => {
  t = await startTestApp({ env: { BACKUPS_POLL_MS: '20' } });
  other = await t.startAnotherServer();
}, 60_000);
afterAll(async () => {
  await other?.close();
  await t?.close();
});

describe('backup settings', () => {
  it('are off by default and refuse cron forms a backup cannot use', async () => {
    expect((await asAdmin('GET', '/api/database/config')).json).toEqual({
      backup: { enabled: false, cronSchedule: '0 0 * * *', retentionDays: 7, nextBackupAt: null },
    });
    for (const cronSchedule of ['*/5 * * * *', '0 0 * *', 'x y z a b']) {
      const res = await asAdmin('PATCH', '/api/database/config', { backup: { cronSchedule } });
      expect(res.statusCode).toBe(400);
      expect(res.json.nextActions).toMatch(/five UTC cron fields/);
    }
    expect((await asAdmin('PATCH', '/api/database/config', { backup: {} })).statusCode).toBe(400);
  });
});

describe('scheduled backups', () => {
  it('fire once per due time across two servers, then expire after retentionDays', async () => {
    const manual = await asAdmin('POST', '/api/database/backups', { name: 'manual' });
    await vi.waitFor(async () => expect((await list())[0]?.status).toBe('completed'), { timeout: 20_000 });

    const enabled = await asAdmin('PATCH', '/api/database/config', {
      backup: { enabled: true, cronSchedule: '30 * * * *', retentionDays: 1 },
    });
    expect(enabled.statusCode).toBe(200);
    const due = new Date(enabled.json.backup.nextBackupAt);
    expect(due.getUTCMinutes()).toBe(30);
    expect(due.getTime()).toBeGreaterThan(t.clock.now().getTime());

    t.clock.advance(due.getTime() - t.clock.now().getTime());
    await vi.waitFor(
      async () => {
        const scheduled = (await list()).filter((b) => b.triggerSource === 'scheduled');
        expect(scheduled).toHaveLength(1);
        expect(scheduled[0]).toMatchObject({ status: 'completed', errorMessage: null, createdBy: null });
        const created = Date.parse(scheduled[0]!.createdAt as string);
        expect(Date.parse(scheduled[0]!.expiresAt as string)).toBe(created + 24 * HOUR);
      },
      { timeout: 20_000, interval: 20 },
    );
    const config = (await asAdmin('GET', '/api/database/config')).json.backup;
    expect(Date.parse(config.nextBackupAt)).toBe(due.getTime() + HOUR);

    // A day later: the first scheduled backup expired and is deleted; the manual one stays.
    const first = (await list()).find((b) => b.triggerSource === 'scheduled')!.id;
    t.clock.advance(25 * HOUR);
    await vi.waitFor(
      async () => {
        const ids = (await list()).map((b) => b.id);
        expect(ids).not.toContain(first);
        expect(ids).toContain(manual.json.id);
      },
      { timeout: 20_000, interval: 20 },
    );
    expect((await list()).find((b) => b.id === manual.json.id)?.expiresAt).toBeNull();
    await asAdmin('PATCH', '/api/database/config', { backup: { enabled: false } });
    // The hour advanced past is due too: its backup may still be running (seconds on a busy machine).
    await vi.waitFor(async () => expect((await list()).some((b) => b.status === 'running')).toBe(false), {
      timeout: 20_000,
      interval: 20,
    });
  });
});
