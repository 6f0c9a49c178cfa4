// Realtime through the official client's realtime module (socket.io-client over WebSocket), end
// to end against two Plinth servers on one database: handshake with each credential kind,
// subscribe and publish allowed and refused (channel patterns, an owner-only policy), messages
// published on one server or from SQL reaching sockets on the other, presence across servers and
// after a server stops heartbeating, revoked sessions' sockets closed, and a graceful stop.
import { createAdminClient, type InsForgeClient } from '@insforge/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../harness/free-port.js';
import { pollUntil } from '../../harness/server-process.js';
import type { Server } from '../../harness/test-app.js';
import { startSdkApp, type SdkApp } from './sdk-app.js';

let s: SdkApp;
let other: Server;
let otherUrl: string;
let otherClosed = false;
const clients: InsForgeClient[] = [];

beforeAll(async () => {
  // Heartbeats every hour of real time: on the test's clock a server is silent unless it acts.
  s = await startSdkApp({ env: { REALTIME_HEARTBEAT_MS: '3600000' } });
  other = await s.t.startAnotherServer();
  const port = await freePort();
  await other.app.listen({ port, host: '127.0.0.1' });
  otherUrl = `http://127.0.0.1:${port}`;
  for (const pattern of ['chat:%', 'news', 'private:%']) {
    const res = await s.t.request({
      method: 'POST',
      url: '/api/realtime/channels',
      headers: { 'x-api-key': s.t.apiKey },
      payload: { pattern, description: `${pattern} channels` },
    });
    expect(res.statusCode).toBe(201);
  }
});
afterAll(async () => {
  for (const client of clients) client.realtime.disconnect();
  if (!otherClosed) await other?.close();
  await s.close();
});

/** A client of the first server (or of `baseUrl`), disconnected after the file. */
function track(client: InsForgeClient): InsForgeClient {
  clients.push(client);
  return client;
}
const anonClient = (baseUrl = s.baseUrl) => track(s.client({ baseUrl }));
async function userClient(baseUrl = s.baseUrl) {
  const user = await s.t.signUp();
  return { user, client: track(s.client({ baseUrl, accessToken: user.accessToken })) };
}

/** The next `event` the client's realtime module passes to its listeners. */
function next<T = any>(client: InsForgeClient, event: string): Promise<T> {
  return new Promise((resolve) => client.realtime.once(event, (message: unknown) => resolve(message as T)));
}

const UNAUTHORIZED_SUBSCRIBE = {
  ok: false,
  error: { code: 'REALTIME_UNAUTHORIZED', message: 'Not authorized to subscribe to this channel' },
};

describe('handshake', () => {
  it('connects with the anon key, an access token and the admin client (API key as token)', async () => {
    await expect(anonClient().realtime.connect()).resolves.toBeUndefined();
    const { client } = await userClient();
    await expect(client.realtime.connect()).resolves.toBeUndefined();
    const admin = track(createAdminClient({ baseUrl: s.baseUrl, apiKey: s.t.apiKey }));
    await expect(admin.realtime.connect()).resolves.toBeUndefined();
  });

  it('refuses an invalid token and an unknown anon key with the platform texts', async () => {
    const bad = track(s.client({ accessToken: 'not-a-jwt' }));
    await expect(bad.realtime.connect()).rejects.toMatchObject({ message: 'Invalid token' });
    const unknownAnon = track(s.client({ anonKey: `anon_${'0'.repeat(64)}` }));
    await expect(unknownAnon.realtime.connect()).rejects.toMatchObject({ message: 'Invalid anon key' });
    const unknownApiKey = track(createAdminClient({ baseUrl: s.baseUrl, apiKey: `ik_${'0'.repeat(64)}` }));
    await expect(unknownApiKey.realtime.connect()).rejects.toMatchObject({ message: 'Invalid API key' });
  });
});

describe('subscribe and publish', () => {
  it('subscribes to a channel an enabled pattern opens, with the presence snapshot', async () => {
    const client = anonClient();
    const ack = await client.realtime.subscribe('chat:lobby');
    expect(ack).toEqual({
      ok: true,
      channel: 'chat:lobby',
      presence: {
        members: [{ type: 'anonymous', presenceId: client.realtime.socketId, joinedAt: expect.any(String) }],
      },
    });
  });

  it('refuses a channel no enabled pattern matches, and one whose pattern was disabled', async () => {
    const client = anonClient();
    expect(await client.realtime.subscribe('nowhere:1')).toMatchObject({
      ...UNAUTHORIZED_SUBSCRIBE,
      channel: 'nowhere:1',
    });
    const created = await s.t.request({
      method: 'POST',
      url: '/api/realtime/channels',
      headers: { 'x-api-key': s.t.apiKey },
      payload: { pattern: 'closed:%', enabled: false },
    });
    expect(created.statusCode).toBe(201);
    expect(await client.realtime.subscribe('closed:1')).toMatchObject(UNAUTHORIZED_SUBSCRIBE);
  });

  it('delivers a publish to every subscriber, the publisher included, with meta', async () => {
    const { user, client: publisher } = await userClient();
    const listener = anonClient();
    await publisher.realtime.subscribe('chat:room-1');
    await listener.realtime.subscribe('chat:room-1');
    const heard = next(listener, 'message.new');
    const echoed = next(publisher, 'message.new');
    await publisher.realtime.publish('chat:room-1', 'message.new', { text: 'hello', meta: 'replaced' });
    const message = await heard;
    expect(message).toEqual({
      text: 'hello',
      meta: {
        channel: 'chat:room-1',
        messageId: expect.any(String),
        senderType: 'user',
        senderId: user.user.id,
        timestamp: expect.any(String),
      },
    });
    expect((await echoed).meta.messageId).toBe(message.meta.messageId);

    const stored = await s.t.request({
      method: 'GET',
      url: `/api/realtime/messages?eventName=message.new`,
      headers: { 'x-api-key': s.t.apiKey },
    });
    expect(stored.json[0]).toMatchObject({
      id: message.meta.messageId,
      channelName: 'chat:room-1',
      senderType: 'user',
      senderId: user.user.id,
      payload: { text: 'hello', meta: 'replaced' },
    });
  });

  it('refuses a publish to a channel the socket has not subscribed to', async () => {
    const client = anonClient();
    await client.realtime.connect();
    const error = next(client, 'error');
    await client.realtime.publish('chat:elsewhere', 'x', {});
    expect(await error).toEqual({
      channel: 'chat:elsewhere',
      code: 'REALTIME_NOT_SUBSCRIBED',
      message: 'Must subscribe to channel before publishing messages',
    });
  });

  it('delivers realtime.publish() from SQL as a system message, on every server', async () => {
    const here = anonClient();
    const there = anonClient(otherUrl);
    await here.realtime.subscribe('news');
    await there.realtime.subscribe('news');
    const heardHere = next(here, 'headline');
    const heardThere = next(there, 'headline');
    const [row] = await s.t.deps.sql`select realtime.publish('news', 'headline', '{"title": "from SQL"}'::jsonb) as id`;
    for (const message of [await heardHere, await heardThere]) {
      expect(message).toEqual({
        title: 'from SQL',
        meta: { channel: 'news', messageId: row!.id, senderType: 'system', timestamp: expect.any(String) },
      });
    }
    const [none] = await s.t.deps.sql`select realtime.publish('unknown-channel', 'x', '{}'::jsonb) as id`;
    expect(none!.id).toBeNull();
  });

  it('delivers a message committed while the servers had lost their LISTEN connection', async () => {
    const here = anonClient();
    const there = anonClient(otherUrl);
    await here.realtime.subscribe('chat:relisten');
    await there.realtime.subscribe('chat:relisten');
    const heardHere = next(here, 'after-loss');
    const heardThere = next(there, 'after-loss');
    // The NOTIFY goes out at commit, after both servers' LISTEN backends were ended.
    await s.t.deps.sql.begin(async (tx) => {
      await tx`select realtime.publish('chat:relisten', 'after-loss', '{"n": 1}'::jsonb)`;
      await tx`
        select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and query ilike 'listen %'`;
    });
    expect(await heardHere).toMatchObject({ n: 1 });
    expect(await heardThere).toMatchObject({ n: 1 });
  });

  it('delivers a publish made on one server to subscribers on the other', async () => {
    const publisher = anonClient();
    const remote = anonClient(otherUrl);
    await publisher.realtime.subscribe('chat:cross');
    await remote.realtime.subscribe('chat:cross');
    const heard = next(remote, 'ping');
    await publisher.realtime.publish('chat:cross', 'ping', { n: 1 });
    expect(await heard).toMatchObject({ n: 1, meta: { senderType: 'user', channel: 'chat:cross' } });
  });

  it('counts in the stored message the sockets it reached on every server', async () => {
    const publisher = anonClient();
    const remotes = [anonClient(otherUrl), anonClient(otherUrl)];
    for (const client of [publisher, ...remotes]) await client.realtime.subscribe('chat:counted');
    const heard = [publisher, ...remotes].map((client) => next(client, 'tally'));
    await publisher.realtime.publish('chat:counted', 'tally', {});
    const [{ meta }] = await Promise.all(heard);
    const stored = async () => {
      const res = await s.t.request({
        method: 'GET',
        url: '/api/realtime/messages?eventName=tally',
        headers: { 'x-api-key': s.t.apiKey },
      });
      return res.json.find((m: { id: string }) => m.id === meta.messageId) as { wsAudienceCount: number };
    };
    await pollUntil('both servers to add their audience', 10_000, async () => (await stored()).wsAudienceCount === 3);
    expect(await stored()).toMatchObject({ wsAudienceCount: 3 });
  });

  it('delivers a message too big for a notification whole on both servers, in order with those around it', async () => {
    const publisher = anonClient();
    const remote = anonClient(otherUrl);
    await publisher.realtime.subscribe('chat:big');
    await remote.realtime.subscribe('chat:big');
    // 4,500 characters but 9,000 bytes: past the 8,000 bytes a NOTIFY payload may hold.
    const text = 'é'.repeat(4500);
    const meta = expect.objectContaining({ channel: 'chat:big' });
    const heard = next(remote, 'big');
    await publisher.realtime.publish('chat:big', 'big', { text });
    expect(await heard).toEqual({ text, meta: expect.objectContaining({ senderType: 'user' }) });

    // Three messages committed together, the big one in the middle: announced and delivered in order.
    const parts = (client: InsForgeClient) =>
      new Promise<unknown[]>((resolve) => {
        const got: unknown[] = [];
        client.realtime.on('part', (message: { n: number }) => {
          got.push(message);
          if (got.length === 3) resolve(got);
        });
      });
    const [here, there] = [parts(publisher), parts(remote)];
    await s.t.deps.sql.begin(async (tx) => {
      for (const payload of [{ n: 1 }, { n: 2, text }, { n: 3 }]) {
        await tx`select realtime.publish('chat:big', 'part', ${payload as never}::jsonb)`;
      }
    });
    for (const got of [await here, await there]) {
      expect(got).toEqual([
        { n: 1, meta },
        { n: 2, text, meta },
        { n: 3, meta },
      ]);
    }
  });
});

describe('row-level security narrows channels', () => {
  beforeAll(async () => {
    // private:<user id> is its owner's only: subscribe (SELECT on channels) and publish (INSERT on messages).
    await s.t.deps.sql.unsafe(`
      alter table realtime.channels enable row level security;
      alter table realtime.messages enable row level security;
      create policy open_channels on realtime.channels for select to anon, authenticated
        using (pattern <> 'private:%'
          or realtime.channel_name() = 'private:' || auth.uid()::text);
      create policy owner_publishes on realtime.messages for insert to anon, authenticated
        with check (channel_name not like 'private:%' or channel_name = 'private:' || auth.uid()::text);`);
  });
  afterAll(async () => {
    await s.t.deps.sql.unsafe(`
      drop policy open_channels on realtime.channels;
      drop policy owner_publishes on realtime.messages;
      alter table realtime.channels disable row level security;
      alter table realtime.messages disable row level security;`);
  });

  it('lets the owner subscribe to its channel and refuses another user and the anon key', async () => {
    const owner = await userClient();
    const channel = `private:${owner.user.user.id}`;
    expect(await owner.client.realtime.subscribe(channel)).toMatchObject({ ok: true, channel });
    const stranger = await userClient();
    expect(await stranger.client.realtime.subscribe(channel)).toMatchObject(UNAUTHORIZED_SUBSCRIBE);
    expect(await anonClient().realtime.subscribe(channel)).toMatchObject(UNAUTHORIZED_SUBSCRIBE);
    // Channels the policy leaves open stay open.
    expect(await stranger.client.realtime.subscribe('chat:open')).toMatchObject({ ok: true });
  });

  it('refuses a publish the INSERT policy rejects, and delivers the owner’s', async () => {
    const owner = await userClient();
    const channel = `private:${owner.user.user.id}`;
    await owner.client.realtime.subscribe(channel);
    const heard = next(owner.client, 'note');
    await owner.client.realtime.publish(channel, 'note', { ok: 1 });
    expect(await heard).toMatchObject({ ok: 1 });

    await s.t.deps.sql.unsafe(`
      create policy no_shouting on realtime.messages as restrictive for insert to anon, authenticated
        with check (event_name <> 'shout')`);
    try {
      const refused = next(owner.client, 'error');
      await owner.client.realtime.publish(channel, 'shout', {});
      expect(await refused).toEqual({
        channel,
        code: 'REALTIME_UNAUTHORIZED',
        message: 'Not authorized to publish to this channel',
      });
    } finally {
      await s.t.deps.sql.unsafe('drop policy no_shouting on realtime.messages');
    }
  });

  it('lets an INSERT policy read the channel being published to (realtime.channel_name())', async () => {
    const client = anonClient();
    await client.realtime.subscribe('chat:loud');
    await client.realtime.subscribe('chat:muted');
    await s.t.deps.sql.unsafe(`
      create policy muted_channel on realtime.messages as restrictive for insert to anon, authenticated
        with check (realtime.channel_name() = channel_name and realtime.channel_name() <> 'chat:muted')`);
    try {
      const refused = next(client, 'error');
      await client.realtime.publish('chat:muted', 'say', { n: 1 });
      expect(await refused).toEqual({
        channel: 'chat:muted',
        code: 'REALTIME_UNAUTHORIZED',
        message: 'Not authorized to publish to this channel',
      });
      const heard = next(client, 'say');
      await client.realtime.publish('chat:loud', 'say', { n: 2 });
      expect(await heard).toMatchObject({ n: 2, meta: { channel: 'chat:loud' } });
    } finally {
      await s.t.deps.sql.unsafe('drop policy muted_channel on realtime.messages');
    }
  });
});

describe('presence across servers', () => {
  it('lists members of both servers, announces joins and leaves, one member per user', async () => {
    const first = await userClient();
    const second = await userClient(otherUrl);
    const channel = 'chat:presence';
    await first.client.realtime.subscribe(channel);
    const joined = next(first.client, 'presence:join');
    const ack = await second.client.realtime.subscribe(channel);
    expect(ack).toMatchObject({
      ok: true,
      presence: {
        members: [
          { type: 'user', presenceId: first.user.user.id },
          { type: 'user', presenceId: second.user.user.id },
        ],
      },
    });
    expect(await joined).toMatchObject({
      member: { type: 'user', presenceId: second.user.user.id, joinedAt: expect.any(String) },
      meta: { channel, senderType: 'system', messageId: expect.any(String) },
    });
    expect(first.client.realtime.getPresenceState(channel).map((m) => m.presenceId)).toContain(second.user.user.id);

    // A second tab of the first user (on the other server) is the same member: no join.
    const secondTab = track(s.client({ baseUrl: otherUrl, accessToken: first.user.accessToken }));
    const tabAck = await secondTab.realtime.subscribe(channel);
    expect(tabAck.ok && tabAck.presence.members).toHaveLength(2);

    const left = next(first.client, 'presence:leave');
    second.client.realtime.unsubscribe(channel);
    expect(await left).toMatchObject({ member: { presenceId: second.user.user.id }, meta: { channel } });
  });
});

describe('sessions', () => {
  it('closes the sockets of a session that ends (sign-out), on every server', async () => {
    const { user, client } = await userClient(otherUrl);
    await client.realtime.connect();
    const disconnected = next(client, 'disconnect');
    const res = await s.t.request({
      method: 'POST',
      url: '/api/auth/logout?client_type=mobile',
      headers: { authorization: `Bearer ${user.accessToken}` },
      payload: { refreshToken: user.refreshToken },
    });
    expect(res.statusCode).toBeLessThan(300);
    expect(await disconnected).toBe('io server disconnect');
    // Its token no longer opens a socket.
    const again = track(s.client({ accessToken: user.accessToken }));
    await expect(again.realtime.connect()).rejects.toMatchObject({ message: 'Invalid token' });
  });
});

describe('after the clock moves past the presence TTL and the token lifetime', () => {
  it('drops members of a server that stopped heartbeating, announces their leave, and takes them back when it beats again', async () => {
    const channel = 'chat:stale';
    const watcher = anonClient();
    const remote = anonClient(otherUrl);
    await watcher.realtime.subscribe(channel);
    const remoteJoined = next(watcher, 'presence:join');
    await remote.realtime.subscribe(channel);
    const remoteId = remote.realtime.socketId;
    expect(await remoteJoined).toMatchObject({ member: { presenceId: remoteId } });
    // Three heartbeat intervals of silence (the test's clock; the timers run hourly).
    s.t.clock.advance(3 * 3_600_000 + 1_000);
    const left = next(watcher, 'presence:leave');
    const newcomerJoined = next(watcher, 'presence:join');
    const newcomer = anonClient();
    const ack = await newcomer.realtime.subscribe(channel);
    expect(await left).toMatchObject({ member: { type: 'anonymous', presenceId: remoteId } });
    expect(await newcomerJoined).toMatchObject({ member: { presenceId: newcomer.realtime.socketId } });
    expect(ack.ok && ack.presence.members.map((m) => m.presenceId)).toEqual([
      watcher.realtime.socketId,
      newcomer.realtime.socketId,
    ]);

    // The other server was only silent: at its next heartbeat it finds itself taken for dead and
    // its sockets join again (here the heartbeat that a subscribe on it runs first).
    const rejoined = next(watcher, 'presence:join');
    await anonClient(otherUrl).realtime.subscribe('chat:elsewhere');
    expect(await rejoined).toMatchObject({ member: { type: 'anonymous', presenceId: remoteId }, meta: { channel } });
    const again = await anonClient().realtime.subscribe(channel);
    expect(again.ok && again.presence.members.map((m) => m.presenceId)).toContain(remoteId);
  });

  it('refuses an expired access token; after the app refreshes the session the client connects', async () => {
    const user = await s.t.signUp();
    const client = track(s.client({ isServerMode: true }));
    const signedIn = await client.auth.signInWithPassword({ email: user.email, password: user.password });
    expect(signedIn.error).toBeNull();
    s.t.clock.advance((s.t.config.accessTokenTtlSeconds + 1) * 1000);
    await expect(client.realtime.connect()).rejects.toMatchObject({ message: 'Invalid token' });
    const refreshed = await client.auth.refreshSession({ refreshToken: signedIn.data!.refreshToken! });
    expect(refreshed.error).toBeNull();
    await expect(client.realtime.connect()).resolves.toBeUndefined();
    expect((await client.realtime.subscribe('chat:after-refresh')).ok).toBe(true);
  });
});

describe('graceful stop', () => {
  it('tells clients, closes their sockets (they try to reconnect) and does not hold up the stop', async () => {
    const client = anonClient(otherUrl);
    await client.realtime.subscribe('chat:stop');
    const notice = next(client, 'notification');
    const disconnected = next(client, 'disconnect');
    const started = Date.now();
    otherClosed = true;
    await other.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await notice).toMatchObject({
      level: 'warning',
      title: 'Server Shutdown',
      message: 'Server is shutting down',
    });
    expect(await disconnected).toBe('transport close');
  });
});
