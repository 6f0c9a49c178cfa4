// The realtime admin routes as the official dashboard and MCP server call them: channel patterns
// (create, validate, list newest first, update keeping absent fields, delete keeping messages),
// stored messages (filters, stats, delete) and the retention setting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const admin = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
  t.request({ method, url, headers: { 'x-api-key': t.apiKey }, ...(payload === undefined ? {} : { payload }) });

describe('channels', () => {
  it('creates, reads, lists (newest first), updates and deletes a channel pattern', async () => {
    const created = await admin('POST', '/api/realtime/channels', {
      pattern: 'orders:%',
      description: 'order updates',
      webhookUrls: ['https://hooks.example.com/orders'],
    });
    expect(created.statusCode).toBe(201);
    expect(created.json).toEqual({
      id: expect.any(String),
      pattern: 'orders:%',
      description: 'order updates',
      webhookUrls: ['https://hooks.example.com/orders'],
      enabled: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const second = await admin('POST', '/api/realtime/channels', { pattern: 'lobby' });
    expect(second.json).toMatchObject({ description: null, webhookUrls: null, enabled: true });

    const list = await admin('GET', '/api/realtime/channels');
    expect(list.json.map((c: { pattern: string }) => c.pattern).slice(0, 2)).toEqual(
      expect.arrayContaining(['orders:%', 'lobby']),
    );
    expect((await admin('GET', `/api/realtime/channels/${created.json.id}`)).json).toEqual(created.json);

    const updated = await admin('PUT', `/api/realtime/channels/${created.json.id}`, {
      enabled: false,
      webhookUrls: [],
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json).toMatchObject({
      pattern: 'orders:%',
      description: 'order updates',
      webhookUrls: [],
      enabled: false,
    });

    const deleted = await admin('DELETE', `/api/realtime/channels/${created.json.id}`);
    expect(deleted.json).toEqual({ message: 'Channel deleted' });
    const gone = await admin('GET', `/api/realtime/channels/${created.json.id}`);
    expect(gone.statusCode).toBe(404);
    expect(gone.json).toMatchObject({ error: 'REALTIME_CHANNEL_NOT_FOUND', nextActions: expect.any(String) });
  });

  it('refuses an invalid pattern, a duplicate, and a bad body, each with the fix', async () => {
    const underscore = await admin('POST', '/api/realtime/channels', { pattern: 'bad_pattern' });
    expect(underscore.statusCode).toBe(400);
    expect(underscore.json).toMatchObject({
      error: 'REALTIME_INVALID_CHANNEL_PATTERN',
      nextActions: expect.any(String),
    });
    await admin('POST', '/api/realtime/channels', { pattern: 'dup' });
    const duplicate = await admin('POST', '/api/realtime/channels', { pattern: 'dup' });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json).toMatchObject({ error: 'CONFLICT', nextActions: expect.any(String) });
    const badUrl = await admin('POST', '/api/realtime/channels', { pattern: 'x', webhookUrls: ['not a url'] });
    expect(badUrl.statusCode).toBe(400);
    const missing = await admin('PUT', '/api/realtime/channels/00000000-0000-4000-8000-000000000000', {
      enabled: true,
    });
    expect(missing.statusCode).toBe(404);
  });
});

describe('messages and retention', () => {
  it('lists messages with filters, counts them in stats, deletes them; channel deletion keeps the name', async () => {
    const channel = await admin('POST', '/api/realtime/channels', { pattern: 'stats:%' });
    await t.deps.sql`select realtime.publish('stats:1', 'created', '{"n": 1}'::jsonb)`;
    await t.deps.sql`select realtime.publish('stats:1', 'created', '{"n": 2}'::jsonb)`;
    await t.deps.sql`select realtime.publish('stats:2', 'removed', '{"n": 3}'::jsonb)`;

    const list = await admin('GET', `/api/realtime/messages?channelId=${channel.json.id}&limit=2`);
    expect(list.statusCode).toBe(200);
    expect(list.json).toHaveLength(2);
    expect(list.json[0]).toMatchObject({
      channelId: channel.json.id,
      senderType: 'system',
      senderId: null,
      wsAudienceCount: 0,
      whAudienceCount: 0,
      whDeliveredCount: 0,
    });
    const removed = await admin('GET', '/api/realtime/messages?eventName=removed');
    expect(removed.json.map((m: { payload: unknown }) => m.payload)).toEqual([{ n: 3 }]);
    expect((await admin('GET', '/api/realtime/messages?limit=0')).statusCode).toBe(400);

    const stats = await admin('GET', `/api/realtime/messages/stats?channelId=${channel.json.id}`);
    expect(stats.json).toEqual({
      totalMessages: 3,
      whDeliveryRate: 0,
      topEvents: [
        { eventName: 'created', count: 2 },
        { eventName: 'removed', count: 1 },
      ],
      retentionDays: 30, // the default until an admin sets one
    });

    await admin('DELETE', `/api/realtime/channels/${channel.json.id}`);
    const orphaned = await admin('GET', '/api/realtime/messages?eventName=removed');
    expect(orphaned.json[0]).toMatchObject({ channelId: null, channelName: 'stats:2' });

    const cleared = await admin('DELETE', '/api/realtime/messages');
    expect(cleared.json.deleted).toBeGreaterThanOrEqual(3);
    expect((await admin('GET', '/api/realtime/messages')).json).toEqual([]);
  });

  it('reads and sets the retention period (30 days until set; null set by an admin keeps messages forever)', async () => {
    expect((await admin('GET', '/api/realtime/config')).json).toEqual({ retentionDays: 30 });
    const set = await admin('PATCH', '/api/realtime/config', { retentionDays: 7 });
    expect(set.json).toEqual({ message: 'Retention config updated successfully' });
    expect((await admin('GET', '/api/realtime/config')).json).toEqual({ retentionDays: 7 });
    expect((await admin('GET', '/api/realtime/messages/stats')).json.retentionDays).toBe(7);
    expect((await admin('PATCH', '/api/realtime/config', { retentionDays: 0 })).statusCode).toBe(400);
    expect((await admin('PATCH', '/api/realtime/config', {})).statusCode).toBe(400);
    await admin('PATCH', '/api/realtime/config', { retentionDays: null });
    expect((await admin('GET', '/api/realtime/config')).json).toEqual({ retentionDays: null });
  });

  it('deletes messages older than the retention period when a server starts (and hourly)', async () => {
    await admin('POST', '/api/realtime/channels', { pattern: 'kept' });
    await t.deps.sql`
      insert into realtime.messages (event_name, channel_name, created_at)
      values ('old', 'kept', now() - interval '3 days'), ('recent', 'kept', now())`;
    await admin('PATCH', '/api/realtime/config', { retentionDays: 2 });
    const server = await t.startAnotherServer();
    await server.close(); // its start purged; the stop waits for the purge
    const left = await admin('GET', '/api/realtime/messages?limit=1000');
    expect(left.json.map((m: { eventName: string }) => m.eventName)).toEqual(['recent']);
    await admin('PATCH', '/api/realtime/config', { retentionDays: null });
  });
});

describe('permissions', () => {
  it('lists the policies on channels (subscribe) and messages (publish), roles as an array', async () => {
    expect((await admin('GET', '/api/realtime/permissions')).json).toEqual({
      subscribe: { policies: [] },
      publish: { policies: [] },
    });
    await t.deps.sql.unsafe(`
      create policy members_read on realtime.channels for select to authenticated using (true);
      create policy members_write on realtime.messages for insert to anon, authenticated
        with check (sender_id = auth.uid());`);
    const res = await admin('GET', '/api/realtime/permissions');
    expect(res.json).toEqual({
      subscribe: {
        policies: [
          {
            policyName: 'members_read',
            tableName: 'channels',
            command: 'SELECT',
            roles: ['authenticated'],
            using: 'true',
            withCheck: null,
          },
        ],
      },
      publish: {
        policies: [
          {
            policyName: 'members_write',
            tableName: 'messages',
            command: 'INSERT',
            roles: ['anon', 'authenticated'],
            using: null,
            withCheck: '(sender_id = auth.uid())',
          },
        ],
      },
    });
  });
});
