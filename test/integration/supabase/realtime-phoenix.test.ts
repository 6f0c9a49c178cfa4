// Supabase Realtime (/realtime/v1/websocket, Phoenix channels) through @supabase/supabase-js
// itself (ws transport, Node 20), two and more clients on one listening Plinth: broadcast (self,
// ack, binary pushes, REST), presence, postgres_changes with RLS, column rights and filters,
// private channels allowed and denied by policies on realtime.messages, access_token updates and
// expiry, vsn 1.0.0 and 2.0.0, and the socket caps and payload bound of the security work.
import { readFileSync } from 'node:fs';
import { createClient as createPlinthClient } from '@insforge/sdk';
import { createClient, type RealtimeChannel, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { freePort } from '../../harness/free-port.js';
import { pollUntil } from '../../harness/server-process.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let baseUrl: string;
const clients: SupabaseClient[] = [];
const WAIT = 5_000;

beforeAll(async () => {
  t = await startTestApp({
    env: {
      REALTIME_CREDENTIAL_CHECK_MS: '50',
      REALTIME_MAX_SOCKETS_PER_USER: '6',
      REALTIME_MAX_PAYLOAD_BYTES: '2048',
    },
  });
  const port = await freePort();
  await t.app.listen({ port, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  for (const c of clients) await c.removeAllChannels();
  await t.close();
});

/**
 * A supabase-js client with the anon key; with `token`, signed in as supabase-js does it on
 * SIGNED_IN (realtime.setAuth(access token)), so joins carry the user's access_token.
 */
function sb(options: { token?: string; vsn?: '1.0.0' | '2.0.0' } = {}) {
  const client = createClient(baseUrl, t.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: WebSocket as never, vsn: options.vsn ?? '2.0.0' },
    ...(options.token ? { accessToken: async () => options.token as string } : {}),
  });
  if (options.token) void client.realtime.setAuth(options.token);
  clients.push(client);
  return client;
}

/** Subscribes; resolves on SUBSCRIBED, rejects with the channel error. */
function subscribed(channel: RealtimeChannel): Promise<RealtimeChannel> {
  return new Promise((resolve, reject) =>
    channel.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') resolve(channel);
      else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') reject(err ?? new Error(status));
    }),
  );
}

const until = <T>(what: string, check: () => T | undefined | false) => pollUntil(what, WAIT, check, 10);

async function migrate(version: string, sql: string) {
  return t.request({
    method: 'POST',
    url: '/api/database/migrations',
    headers: { 'x-api-key': t.apiKey },
    payload: { version, name: 'supabase-realtime-chat', sql },
  });
}

async function user() {
  const s = await t.signUp();
  return { id: s.user.id as string, token: s.accessToken as string };
}

describe('the socket', () => {
  it('upgrades with the apikey and answers heartbeats (vsn 2 arrays, vsn 1 objects)', async () => {
    for (const vsn of ['2.0.0', '1.0.0']) {
      const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/realtime/v1/websocket?apikey=${t.anonKey}&vsn=${vsn}`);
      const reply = await new Promise<unknown>((resolve, reject) => {
        ws.on('error', reject);
        ws.on('open', () =>
          ws.send(
            vsn === '2.0.0'
              ? JSON.stringify([null, '1', 'phoenix', 'heartbeat', {}])
              : JSON.stringify({ topic: 'phoenix', event: 'heartbeat', payload: {}, ref: '1' }),
          ),
        );
        ws.on('message', (data) => resolve(JSON.parse(String(data))));
      });
      expect(reply).toEqual(
        vsn === '2.0.0'
          ? [null, '1', 'phoenix', 'phx_reply', { status: 'ok', response: {} }]
          : { join_ref: null, ref: '1', topic: 'phoenix', event: 'phx_reply', payload: { status: 'ok', response: {} } },
      );
      ws.close();
    }
  });

  it('refuses an upgrade without a valid apikey (401) or with an unknown vsn (400)', async () => {
    const status = (query: string) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/realtime/v1/websocket?${query}`);
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => resolve(101));
        ws.on('error', () => {});
      });
    expect(await status('vsn=2.0.0')).toBe(401);
    expect(await status(`apikey=anon_${'0'.repeat(64)}&vsn=2.0.0`)).toBe(401);
    expect(await status(`apikey=${t.anonKey}&vsn=3.0.0`)).toBe(400);
    expect(await status(`apikey=${t.anonKey}&vsn=2.0.0`)).toBe(101);
  });
});

describe('the two transports', () => {
  it('keeps Socket.IO clients off Supabase topics, even under a channel pattern that matches them', async () => {
    const pattern = await t.request({
      method: 'POST',
      url: '/api/realtime/channels',
      headers: { 'x-api-key': t.apiKey },
      payload: { pattern: 'supabase:%' },
    });
    expect(pattern.statusCode).toBe(201);
    const client = createPlinthClient({ baseUrl, anonKey: t.anonKey, retryCount: 0 });
    try {
      expect(await client.realtime.subscribe('supabase:private:room:r1')).toMatchObject({
        ok: false,
        error: { code: 'REALTIME_UNAUTHORIZED' },
      });
    } finally {
      client.realtime.disconnect();
      await t.request({
        method: 'DELETE',
        url: `/api/realtime/channels/${pattern.json.id}`,
        headers: { 'x-api-key': t.apiKey },
      });
    }
  });
});

describe('broadcast', () => {
  it('reaches the other members, not the sender (self: false), as binary v2 pushes', async () => {
    const a = sb();
    const b = sb();
    const heardA: unknown[] = [];
    const heardB: unknown[] = [];
    const chA = await subscribed(a.channel('lobby').on('broadcast', { event: 'chat' }, (m) => heardA.push(m)));
    await subscribed(b.channel('lobby').on('broadcast', { event: 'chat' }, (m) => heardB.push(m)));
    expect(await chA.send({ type: 'broadcast', event: 'chat', payload: { text: 'hi' } })).toBe('ok');
    await until('b hears a', () => heardB.length === 1);
    expect(heardB[0]).toEqual({ type: 'broadcast', event: 'chat', payload: { text: 'hi' } });
    // b answers: a hears it, and a never heard its own message.
    await b.channel('lobby').send({ type: 'broadcast', event: 'chat', payload: { text: 'yo' } });
    await until('a hears b', () => heardA.length === 1);
    expect(heardA).toEqual([{ type: 'broadcast', event: 'chat', payload: { text: 'yo' } }]);
  });

  it('echoes to the sender with self: true and acknowledges with ack: true', async () => {
    const a = sb();
    const heard: unknown[] = [];
    const ch = await subscribed(
      a
        .channel('echo', { config: { broadcast: { self: true, ack: true } } })
        .on('broadcast', { event: 'ping' }, (m) => heard.push(m.payload)),
    );
    expect(await ch.send({ type: 'broadcast', event: 'ping', payload: { n: 1 } })).toBe('ok');
    await until('own echo', () => heard.length === 1);
    expect(heard).toEqual([{ n: 1 }]);
  });

  it('refuses a payload past the realtime payload bound (ack: error), and speaks vsn 1.0.0 with vsn 2.0.0', async () => {
    const v1 = sb({ vsn: '1.0.0' });
    const v2 = sb();
    const heard: unknown[] = [];
    const ch1 = await subscribed(v1.channel('mixed', { config: { broadcast: { ack: true } } }));
    await subscribed(v2.channel('mixed').on('broadcast', { event: '*' }, (m) => heard.push(m.payload)));
    expect(await ch1.send({ type: 'broadcast', event: 'big', payload: { x: 'y'.repeat(4000) } })).toBe('error');
    expect(await ch1.send({ type: 'broadcast', event: 'small', payload: { from: 'v1' } })).toBe('ok');
    await until('v2 hears v1', () => heard.length === 1);
    expect(heard).toEqual([{ from: 'v1' }]);
  });

  it('broadcasts from REST (send before joining, and httpSend) to joined members', async () => {
    const listener = sb();
    const heard: unknown[] = [];
    await subscribed(listener.channel('news').on('broadcast', { event: '*' }, (m) => heard.push(m)));
    const sender = sb();
    expect(await sender.channel('news').send({ type: 'broadcast', event: 'headline', payload: { n: 1 } })).toBe('ok');
    await expect(sender.channel('news').httpSend('headline', { n: 2 })).resolves.toEqual({ success: true });
    await until('two REST broadcasts', () => heard.length === 2);
    expect(heard).toEqual([
      { type: 'broadcast', event: 'headline', payload: { n: 1 } },
      { type: 'broadcast', event: 'headline', payload: { n: 2 } },
    ]);
    const bad = await t.request({
      method: 'POST',
      url: '/realtime/v1/api/broadcast',
      headers: { authorization: `Bearer ${t.anonKey}` },
      payload: { messages: [{ topic: '', event: 'x' }] },
    });
    expect(bad.statusCode).toBe(400);
    const anonymous = await t.request({
      method: 'POST',
      url: '/realtime/v1/api/broadcast',
      payload: { messages: [{ topic: 'news', event: 'x', payload: {} }] },
    });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('presence', () => {
  it('tracks and untracks: presence_state on join, presence_diff joins and leaves, by the presence key', async () => {
    const a = sb();
    const b = sb();
    const chA = await subscribed(
      a.channel('room-p', { config: { presence: { key: 'alice' } } }).on('presence', { event: 'sync' }, () => {}),
    );
    expect(await chA.track({ status: 'online' })).toBe('ok');
    const leaves: string[] = [];
    const chB = b
      .channel('room-p', { config: { presence: { key: 'bob' } } })
      .on('presence', { event: 'sync' }, () => {})
      .on('presence', { event: 'leave' }, ({ key }) => leaves.push(key));
    await subscribed(chB);
    // b's state comes from presence_state: alice is there with her payload.
    await until('alice in b', () => chB.presenceState().alice?.length === 1);
    expect(chB.presenceState().alice?.[0]).toMatchObject({ status: 'online' });
    expect(await chB.track({ status: 'away' })).toBe('ok');
    await until('bob in a', () => chA.presenceState().bob?.length === 1);
    expect(chA.presenceState().bob?.[0]).toMatchObject({ status: 'away' });
    expect(await chA.untrack()).toBe('ok');
    await until('alice left b', () => leaves.includes('alice') && chB.presenceState().alice === undefined);
  });
});

describe('postgres_changes and private channels (the realtime chat fixture)', () => {
  let alice: { id: string; token: string };
  let bob: { id: string; token: string };
  let carol: { id: string; token: string };

  beforeAll(async () => {
    [alice, bob, carol] = [await user(), await user(), await user()];
  });

  it('refuses private channels while row level security on realtime.messages is off', async () => {
    const c = sb({ token: alice.token });
    await expect(subscribed(c.channel('room:r1', { config: { private: true } }))).rejects.toThrow(/row level security/);
  });

  it('applies the Supabase chat migration as is (publication, policies on realtime.messages)', async () => {
    const res = await migrate('20990101000001', readFileSync('test/fixtures/supabase/realtime-chat.sql', 'utf8'));
    expect(res.statusCode).toBe(201);
    await t.deps.sql`insert into public.rooms (id) values ('r1'), ('r2')`;
    await t.deps.sql`insert into public.room_members (room_id, user_id) values
      ('r1', ${alice.id}), ('r1', ${carol.id}), ('r2', ${bob.id})`;
  });

  it('delivers INSERTs only to subscribers RLS lets see the row, without columns they may not read', async () => {
    const seen = { alice: [] as any[], bob: [] as any[] };
    const system: any[] = [];
    for (const [name, who] of [
      ['alice', alice],
      ['bob', bob],
    ] as const) {
      const ch = sb({ token: who.token })
        .channel(`changes-${name}`)
        .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'messages' }, (p) => seen[name].push(p))
        .on('system', {}, (p) => system.push(p));
      await subscribed(ch);
    }
    await until(
      'both subscribed to PostgreSQL',
      () => system.filter((s) => s.message === 'Subscribed to PostgreSQL').length === 2,
    );
    await t.deps.sql`insert into public.messages (room_id, user_id, content, moderator_note) values
      ('r1', ${alice.id}, 'for r1', 'hidden'), ('r2', ${bob.id}, 'for r2', 'hidden')`;
    await until('bob sees r2', () => seen.bob.length === 1);
    await until('alice sees r1', () => seen.alice.length === 1);
    expect(seen.bob[0]).toMatchObject({
      eventType: 'INSERT',
      schema: 'public',
      table: 'messages',
      new: { content: 'for r2' },
    });
    expect(seen.alice[0].new).toMatchObject({ room_id: 'r1', content: 'for r1', user_id: alice.id });
    expect(seen.alice[0].new).not.toHaveProperty('moderator_note');
    expect(typeof seen.alice[0].new.id).toBe('number');
    expect(seen.alice[0].commit_timestamp).toEqual(expect.any(String));
  });

  it('applies the filters eq, neq, lt, lte, gt, gte and in; UPDATE carries old, DELETE the old row', async () => {
    const hits: Record<string, any[]> = {};
    const filters = [
      'score=eq.5',
      'score=neq.5',
      'score=lt.5',
      'score=lte.5',
      'score=gt.5',
      'score=gte.5',
      'score=in.(1,9)',
    ];
    let ch = sb({ token: alice.token }).channel('filters');
    for (const filter of filters) {
      hits[filter] = [];
      ch = ch.on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'messages', filter }, (p) =>
        hits[filter]?.push(p.new.score),
      );
    }
    const updates: any[] = [];
    const deletes: any[] = [];
    const system: any[] = [];
    ch = ch
      .on('postgres_changes', { event: 'UPDATE', schema: 'public', table: 'messages', filter: 'room_id=eq.r1' }, (p) =>
        updates.push(p),
      )
      .on('postgres_changes', { event: 'DELETE', schema: 'public', table: 'messages' }, (p) => deletes.push(p))
      .on('system', {}, (p) => system.push(p));
    await subscribed(ch);
    await until('subscribed to PostgreSQL', () => system.length > 0);
    for (const score of [1, 5, 9]) {
      await t.deps
        .sql`insert into public.messages (room_id, user_id, content, score) values ('r1', ${alice.id}, 'f', ${score})`;
    }
    await until('the gte hits', () => hits['score=gte.5']?.length === 2);
    const [updated] = await t.deps.sql<{ id: string }[]>`
      update public.messages set content = 'edited' where room_id = 'r1' and score = 9 returning id`;
    const id = Number(updated!.id);
    await until('the update', () => updates.length === 1);
    await t.deps.sql`delete from public.messages where id = ${id}`;
    await until('the delete', () => deletes.length === 1);
    expect(hits).toEqual({
      'score=eq.5': [5],
      'score=neq.5': [1, 9],
      'score=lt.5': [1],
      'score=lte.5': [1, 5],
      'score=gt.5': [9],
      'score=gte.5': [5, 9],
      'score=in.(1,9)': [1, 9],
    });
    expect(updates[0]).toMatchObject({ eventType: 'UPDATE', new: { content: 'edited' }, old: { content: 'f', id } });
    expect(deletes[0]).toMatchObject({ eventType: 'DELETE', old: { id, content: 'edited' } });
  });

  it('refuses a filter on a column the subscriber may not read, and reports a table outside the publication', async () => {
    const c = sb({ token: alice.token });
    await expect(
      subscribed(
        c
          .channel('peek')
          .on(
            'postgres_changes',
            { event: '*', schema: 'public', table: 'messages', filter: 'moderator_note=eq.hidden' },
            () => {},
          ),
      ),
    ).rejects.toThrow(/moderator_note/);
    const system: any[] = [];
    await subscribed(
      c
        .channel('unpublished')
        .on('postgres_changes', { event: '*', schema: 'public', table: 'rooms' }, () => {})
        .on('system', {}, (p) => system.push(p)),
    );
    await until('the system error', () => system.length === 1);
    expect(system[0]).toMatchObject({ status: 'error', extension: 'postgres_changes' });
  });

  it('lets a room member join, send on and receive a private channel; a non-member is refused', async () => {
    const heard: unknown[] = [];
    const publicHeard: unknown[] = [];
    const chAlice = await subscribed(
      sb({ token: alice.token }).channel('room:r1', { config: { private: true, broadcast: { ack: true } } }),
    );
    await subscribed(
      sb({ token: carol.token })
        .channel('room:r1', { config: { private: true } })
        .on('broadcast', { event: '*' }, (m) => heard.push(m.payload)),
    );
    // A public join of the same name is another channel: it hears nothing private.
    await subscribed(
      sb()
        .channel('room:r1')
        .on('broadcast', { event: '*' }, (m) => publicHeard.push(m.payload)),
    );
    await expect(
      subscribed(sb({ token: bob.token }).channel('room:r1', { config: { private: true } })),
    ).rejects.toThrow(/Unauthorized/);
    expect(await chAlice.send({ type: 'broadcast', event: 'msg', payload: { text: 'secret' } })).toBe('ok');
    await until('carol hears alice', () => heard.length === 1);
    expect(heard).toEqual([{ text: 'secret' }]);
    // Bob may not send on it from REST either; the service key may.
    const bobSend = await t.request({
      method: 'POST',
      url: '/realtime/v1/api/broadcast',
      headers: { authorization: `Bearer ${bob.token}` },
      payload: { messages: [{ topic: 'room:r1', event: 'msg', payload: { text: 'spoof' }, private: true }] },
    });
    expect(bobSend.statusCode).toBe(403);
    const serviceSend = await t.request({
      method: 'POST',
      url: '/realtime/v1/api/broadcast',
      headers: { authorization: `Bearer ${t.apiKey}` },
      payload: { messages: [{ topic: 'room:r1', event: 'msg', payload: { text: 'from the server' }, private: true }] },
    });
    expect(serviceSend.statusCode).toBe(202);
    await until('carol hears the server', () => heard.length === 2);
    expect(heard[1]).toEqual({ text: 'from the server' });
    expect(publicHeard).toEqual([]);
  });
});

describe('credentials', () => {
  it('closes the channels of a connection whose access_token update is invalid', async () => {
    const someone = await user();
    const client = sb({ token: someone.token });
    const statuses: string[] = [];
    const system: any[] = [];
    const ch = client.channel('tokens').on('system', {}, (p) => system.push(p));
    await new Promise<void>((resolve) =>
      ch.subscribe((status) => {
        statuses.push(status);
        if (status === 'SUBSCRIBED') resolve();
      }),
    );
    await client.realtime.setAuth('not-a-jwt');
    await until('the channel closed', () => statuses.includes('CLOSED') || statuses.includes('CHANNEL_ERROR'));
    expect(system.some((s) => s.status === 'error')).toBe(true);
  });

  it('closes a connection whose access token expired, on the injected clock', async () => {
    const someone = await user();
    const client = sb({ token: someone.token });
    const statuses: string[] = [];
    await new Promise<void>((resolve) =>
      client.channel('expiry').subscribe((status) => {
        statuses.push(status);
        if (status === 'SUBSCRIBED') resolve();
      }),
    );
    t.clock.advance(24 * 60 * 60 * 1000);
    await until('the channel closed', () => statuses.length > 1);
    expect(statuses.slice(1)[0]).toMatch(/CLOSED|CHANNEL_ERROR/);
  });

  it('applies the per-user socket cap when a join names the user', async () => {
    const someone = await user();
    for (let i = 0; i < 6; i++) await subscribed(sb({ token: someone.token }).channel(`cap-${i}`));
    await expect(subscribed(sb({ token: someone.token }).channel('cap-6'))).rejects.toThrow(/busy|too many/i);
  });
});
