// What a client may and may not do on a socket, through the official client against a real port:
// it cannot forge the server's events (row changes on table channels, presence, notification,
// realtime:error: refused with a realtime:error, never delivered), cannot publish past the payload
// limit or its bytes-per-second budget, stored messages expire by default, anon sockets see
// signed-in members under pseudonyms, and a socket is closed once its credential ends (token
// expiry, an anon key rotated out) on the injected clock.
import type { InsForgeClient } from '@insforge/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../../harness/test-app.js';
import { startSdkApp, type SdkApp } from '../sdk/sdk-app.js';

let s: SdkApp;
const clients: InsForgeClient[] = [];
beforeAll(async () => {
  // Credentials checked every 20 ms of real time, at the test's clock.
  s = await startSdkApp({ env: { REALTIME_CREDENTIAL_CHECK_MS: '20' } });
  await s.t.deps.sql`insert into realtime.channels (pattern) values ('room:%')`;
  await s.t.deps.sql`create table public.todos (id int primary key, title text)`;
  await s.t.deps.sql`grant select on public.todos to anon`;
  await s.t.deps.sql`alter table public.todos enable row level security`;
  await s.t.deps.sql`create policy todos_all on public.todos for select using (true)`;
  await s.t.deps.sql`select realtime.watch_table('public.todos'::regclass)`;
});
afterAll(async () => {
  for (const client of clients) client.realtime.disconnect();
  await s.close();
});

const track = (client: InsForgeClient) => {
  clients.push(client);
  return client;
};

interface RealtimeError {
  channel: string | null;
  code: string;
  message: string;
}

/** Every `realtime:error` the client hears, in order. */
function errorsOf(client: InsForgeClient): RealtimeError[] {
  const errors: RealtimeError[] = [];
  client.realtime.on('error', (error: RealtimeError) => errors.push(error));
  return errors;
}

/** Resolves once the client has heard `count` realtime:error events. */
function nextErrors(client: InsForgeClient, count: number): Promise<RealtimeError[]> {
  const seen: RealtimeError[] = [];
  return new Promise((resolve) =>
    client.realtime.on('error', (error: RealtimeError) => {
      seen.push(error);
      if (seen.length === count) resolve(seen);
    }),
  );
}

const next = <T = any>(client: InsForgeClient, event: string) =>
  new Promise<T>((resolve) => client.realtime.once(event, (message: unknown) => resolve(message as T)));

/** Records every event the listener's app would see, by name. */
function heard(client: InsForgeClient, names: string[]): string[] {
  const got: string[] = [];
  for (const name of names) client.realtime.on(name, () => got.push(name));
  return got;
}

describe('server events cannot be forged', () => {
  const SERVER_EVENTS = [
    'INSERT',
    'UPDATE',
    'DELETE',
    'presence:join',
    'presence:leave',
    'notification',
    'realtime:error',
  ];

  it('refuses reserved event names on any channel with a clear error; listeners never receive them', async () => {
    const forger = track(s.client());
    const listener = track(s.client());
    await forger.realtime.subscribe('room:1');
    await listener.realtime.subscribe('room:1');
    const got = heard(listener, [...SERVER_EVENTS, 'insert']);
    const listenerErrors = errorsOf(listener);
    const refused = nextErrors(forger, SERVER_EVENTS.length + 1);
    for (const event of [...SERVER_EVENTS, 'insert']) {
      await forger.realtime.publish('room:1', event, { type: event, new: { id: 1 }, member: { presenceId: 'admin' } });
    }
    const errors = await refused;
    expect(errors.map((e) => e.code)).toEqual(Array(SERVER_EVENTS.length + 1).fill('REALTIME_INVALID_EVENT'));
    expect(errors[0]).toEqual({
      channel: 'room:1',
      code: 'REALTIME_INVALID_EVENT',
      message: 'The event name "INSERT" is reserved for the server; choose another name',
    });
    // An ordinary event after them arrives, so anything forged before it would have too.
    const marker = next(listener, 'chat');
    await forger.realtime.publish('room:1', 'chat', { text: 'hi' });
    expect(await marker).toMatchObject({ text: 'hi', meta: { senderType: 'user' } });
    expect(got).toEqual([]);
    expect(listenerErrors).toEqual([]);
  });

  it('keeps table channels read-only: a client cannot publish a row change, the real one still arrives', async () => {
    const forger = track(s.client());
    const listener = track(s.client());
    expect((await forger.realtime.subscribe('table:public.todos')).ok).toBe(true);
    expect((await listener.realtime.subscribe('table:public.todos')).ok).toBe(true);
    const inserts: any[] = [];
    listener.realtime.on('INSERT', (change: any) => inserts.push(change));
    const refused = nextErrors(forger, 2);
    await forger.realtime.publish('table:public.todos', 'INSERT', { type: 'INSERT', new: { id: 99, title: 'forged' } });
    await forger.realtime.publish('table:public.todos', 'todo.created', { id: 99 });
    expect(await refused).toEqual([
      {
        channel: 'table:public.todos',
        code: 'REALTIME_UNAUTHORIZED',
        message: 'Table channels are read-only: only the server publishes row changes on them',
      },
      {
        channel: 'table:public.todos',
        code: 'REALTIME_UNAUTHORIZED',
        message: 'Table channels are read-only: only the server publishes row changes on them',
      },
    ]);
    const real = next(listener, 'INSERT');
    await s.t.deps.sql`insert into public.todos values (1, 'real')`;
    expect(await real).toMatchObject({ new: { id: 1, title: 'real' }, meta: { senderType: 'system' } });
    expect(inserts.map((c) => c.new.title)).toEqual(['real']);
  });
});

describe('message size, byte budget and retention', () => {
  it('refuses a payload past 64 KB with a clear error, and stores nothing', async () => {
    const client = track(s.client());
    await client.realtime.subscribe('room:big');
    const refused = nextErrors(client, 1);
    await client.realtime.publish('room:big', 'blob', { data: 'x'.repeat(200_000) });
    expect(await refused).toEqual([
      {
        channel: 'room:big',
        code: 'REALTIME_PAYLOAD_TOO_LARGE',
        message: 'The payload is 200011 bytes; at most 65536 bytes may be published',
      },
    ]);
    const fits = next(client, 'blob');
    await client.realtime.publish('room:big', 'blob', { data: 'x'.repeat(60_000) });
    expect((await fits).data).toHaveLength(60_000);
    const [stored] = await s.t.deps
      .sql`select count(*)::int as count from realtime.messages where channel_name = 'room:big'`;
    expect(stored!.count).toBe(1);
  });

  it('limits the payload bytes one socket publishes per second (1 MiB), refilled as the clock moves', async () => {
    const client = track(s.client());
    await client.realtime.subscribe('room:bytes');
    const payload = { data: 'y'.repeat(60_000) }; // 60,011 bytes: 17 fit in a second's budget, not 18
    for (let n = 0; n < 17; n++) {
      const delivered = next(client, 'chunk');
      await client.realtime.publish('room:bytes', 'chunk', payload);
      await delivered;
    }
    const refused = nextErrors(client, 1);
    await client.realtime.publish('room:bytes', 'chunk', payload);
    expect(await refused).toEqual([
      {
        channel: 'room:bytes',
        code: 'REALTIME_RATE_LIMITED',
        message: 'Too many payload bytes from this connection; slow down and retry in a second',
      },
    ]);
    s.t.clock.advance(1_000);
    const after = next(client, 'after');
    await client.realtime.publish('room:bytes', 'after', payload);
    await after;
  });

  it('deletes stored messages older than 30 days by default, and reports that retention', async () => {
    const now = s.t.clock.now().getTime();
    const day = 86_400_000;
    await s.t.deps.sql`
      insert into realtime.messages (event_name, channel_name, payload, created_at) values
        ('old', 'room:archive', '{}', ${new Date(now - 31 * day)}),
        ('recent', 'room:archive', '{}', ${new Date(now - 29 * day)})`;
    // A server purges when it starts (then hourly); closing it waits for that purge.
    const other = await s.t.startAnotherServer();
    await other.close();
    const stored = async (eventName: string) =>
      (
        await s.t.request({
          method: 'GET',
          url: `/api/realtime/messages?eventName=${eventName}`,
          headers: bearer(s.t.apiKey),
        })
      ).json.length;
    expect(await stored('old')).toBe(0);
    expect(await stored('recent')).toBe(1);
    const config = await s.t.request({ method: 'GET', url: '/api/realtime/config', headers: bearer(s.t.apiKey) });
    expect(config.json).toEqual({ retentionDays: 30 });
  });
});

describe('presence privacy', () => {
  it("shows anon sockets a pseudonym instead of a member's user id, unless the channel opts in", async () => {
    await s.t.deps.sql`insert into realtime.channels (pattern, presence_user_ids) values ('team:%', true)`;
    const alice = await s.t.signUp();
    const bob = await s.t.signUp();
    const aliceClient = track(s.client({ accessToken: alice.accessToken }));
    const bobClient = track(s.client({ accessToken: bob.accessToken }));
    const watcher = track(s.client());
    await aliceClient.realtime.subscribe('room:people');
    const seen = await watcher.realtime.subscribe('room:people');
    const aliceSeen = seen.ok && seen.presence.members.find((m) => m.type === 'user');
    expect(aliceSeen).toMatchObject({ type: 'user', presenceId: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(JSON.stringify(seen)).not.toContain(alice.user.id);

    // A join reaches the anon socket with a pseudonym and a signed-in one with the id.
    const anonSawJoin = next(watcher, 'presence:join');
    const aliceSawJoin = new Promise<any>((resolve) =>
      aliceClient.realtime.on('presence:join', (event: any) => {
        if (event.member.type === 'user') resolve(event); // (the watcher's own join is anonymous)
      }),
    );
    await bobClient.realtime.subscribe('room:people');
    const anonJoin = await anonSawJoin;
    expect(anonJoin.member.presenceId).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(anonJoin)).not.toContain(bob.user.id);
    expect((await aliceSawJoin).member.presenceId).toBe(bob.user.id);
    // The pseudonym is the same member's each time: the leave matches the join.
    const anonSawLeave = next(watcher, 'presence:leave');
    bobClient.realtime.unsubscribe('room:people');
    expect((await anonSawLeave).member.presenceId).toBe(anonJoin.member.presenceId);

    // A channel that opts in shows anon sockets the ids.
    await aliceClient.realtime.subscribe('team:open');
    const open = await watcher.realtime.subscribe('team:open');
    expect(open.ok && open.presence.members.map((m) => m.presenceId)).toContain(alice.user.id);
  });
});

describe('sockets do not outlive their credentials', () => {
  it('closes a signed-in socket when its access token expires, telling the client why', async () => {
    const user = await s.t.signUp();
    const client = track(s.client({ accessToken: user.accessToken }));
    expect((await client.realtime.subscribe('room:expiring')).ok).toBe(true);
    const told = nextErrors(client, 1);
    const disconnected = next(client, 'disconnect');
    s.t.clock.advance((s.t.config.accessTokenTtlSeconds + 1) * 1000);
    expect(await told).toEqual([
      {
        channel: null,
        code: 'REALTIME_CREDENTIAL_EXPIRED',
        message: 'The access token has expired. Reconnect with a valid credential.',
      },
    ]);
    expect(await disconnected).toBe('io server disconnect');
  });

  it("closes anon-key sockets once a rotated anon key's grace period ends, and not before", async () => {
    const client = track(s.client());
    expect((await client.realtime.subscribe('room:rotating')).ok).toBe(true);
    const rotated = await s.t.request({
      method: 'POST',
      url: '/api/secrets/anon-key/rotate',
      headers: bearer(s.t.apiKey),
      payload: { gracePeriodHours: 1 },
    });
    expect(rotated.statusCode).toBe(200);
    // Within the grace period the socket works (a subscribe checks the credential first).
    expect((await client.realtime.subscribe('room:still-here')).ok).toBe(true);
    const told = nextErrors(client, 1);
    const disconnected = next(client, 'disconnect');
    s.t.clock.advance(3_600_000 + 1_000);
    expect(await told).toMatchObject([
      { code: 'REALTIME_CREDENTIAL_EXPIRED', message: expect.stringContaining('anon key') },
    ]);
    expect(await disconnected).toBe('io server disconnect');
    // The new key opens a socket.
    const fresh = track(s.client({ anonKey: rotated.json.anonKey }));
    expect((await fresh.realtime.subscribe('room:rotating')).ok).toBe(true);
  });
});
