// Two public Supabase example apps' data layers (test/fixtures/supabase/apps: a todo list and a
// Slack-like chat with presence) run against Plinth with only the URL and the key changed, after
// their SQL is applied as is through Plinth's migrations. Two users each time: what one may see and
// change of the other's rows (RLS), realtime inserts and deletes reaching the other client, roles
// deciding who deletes others' messages, and presence in a room as users come and go.
import type { RealtimeChannel } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { freePort } from '../../harness/free-port.js';
import { pollUntil } from '../../harness/server-process.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';
import { type ChatApp, createChatApp, type Message, type OnlineUser } from '../../fixtures/supabase/apps/chat.js';
import { createTodoApp } from '../../fixtures/supabase/apps/todo-list.js';
import { applyFixture } from './rest-harness.js';
import { newEmail } from './auth-app.js';

let t: TestApp;
let url: string;
const PASSWORD = 'example-app-pass-1';
// What a Node process adds to createClient (a browser needs none of it): no stored session, and the
// ws package as the WebSocket (Node 20 has none).
const NODE = {
  auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  realtime: { transport: WebSocket as never },
};
const chats: ChatApp[] = [];

beforeAll(async () => {
  t = await startTestApp();
  const port = await freePort();
  await t.app.listen({ port, host: '127.0.0.1' });
  url = `http://127.0.0.1:${port}`;
  await applyFixture(t, '20240101000100_todos.sql');
  await applyFixture(t, '20240214000000_slack_clone.sql');
});
afterAll(async () => {
  for (const chat of chats) await chat.supabase.removeAllChannels();
  await t.close();
});

const until = <T>(what: string, check: () => T | undefined | false) => pollUntil(what, 5_000, check, 10);

describe('todo list', () => {
  it('two users each keep their own list: add, toggle, delete, and nothing of the other’s', async () => {
    const alice = createTodoApp(url, t.anonKey, NODE);
    const bob = createTodoApp(url, t.anonKey, NODE);
    const aliceUser = await alice.signUp(newEmail('alice'), PASSWORD);
    const bobEmail = newEmail('bob');
    await bob.signUp(bobEmail, PASSWORD);

    const first = await alice.addTodo('  buy milk  ');
    const second = await alice.addTodo('write the report');
    expect(first).toMatchObject({ task: 'buy milk', is_complete: false, user_id: aliceUser.id });
    const toggled = await alice.toggle(first);
    expect(toggled).toMatchObject({ id: first.id, is_complete: true });
    const bobs = await bob.addTodo('walk the dog');

    expect((await alice.fetchTodos()).map((todo) => [todo.task, todo.is_complete])).toEqual([
      ['buy milk', true],
      ['write the report', false],
    ]);
    expect((await bob.fetchTodos()).map((todo) => todo.id)).toEqual([bobs.id]);

    // Bob cannot tick off or delete Alice's todo: RLS hides it, so nothing changes.
    await expect(bob.toggle(second)).rejects.toMatchObject({ code: 'PGRST116' });
    await bob.deleteTodo(second.id);
    expect((await alice.fetchTodos()).find((todo) => todo.id === second.id)).toMatchObject({ is_complete: false });
    // A todo too short for the table's check constraint is refused, and nothing is written.
    await expect(alice.addTodo('ab')).rejects.toMatchObject({ code: '23514' });

    await alice.deleteTodo(first.id);
    expect((await alice.fetchTodos()).map((todo) => todo.id)).toEqual([second.id]);

    // Signed out, the app sees no todos; signed in again, Bob's list is as he left it.
    await bob.signOut();
    expect(await bob.fetchTodos()).toEqual([]);
    await bob.signIn(bobEmail, PASSWORD);
    expect((await bob.fetchTodos()).map((todo) => todo.task)).toEqual(['walk the dog']);
  });
});

describe('chat with presence', () => {
  async function member(tag: string, email = newEmail(tag)) {
    const chat = createChatApp(url, t.anonKey, NODE);
    chats.push(chat);
    const user = await chat.signUp(email, PASSWORD);
    return { chat, id: user.id, email };
  }

  it('channels and messages: the other client gets new and deleted messages live; authors come embedded', async () => {
    const alice = await member('alice');
    const bob = await member('bob');

    const [general] = await alice.chat.addChannel(`general-${Date.now()}`, alice.id);
    expect((await bob.chat.fetchChannels()).map((c) => c.id)).toContain(general!.id);
    // Nobody creates a channel in another user's name.
    await expect(bob.chat.addChannel('forged', alice.id)).rejects.toMatchObject({ code: '42501' });

    const seenByAlice: Message[] = [];
    const deletedForAlice: Partial<Message>[] = [];
    await alice.chat.listenToMessages({
      onNew: (m) => seenByAlice.push(m),
      onDeleted: (old) => deletedForAlice.push(old),
    });

    const [sent] = await bob.chat.addMessage('hello from bob', general!.id, bob.id);
    const live = await until('Alice sees Bob’s message', () => seenByAlice.find((m) => m.id === sent!.id));
    expect(live).toMatchObject({ message: 'hello from bob', user_id: bob.id, channel_id: general!.id });

    await alice.chat.addMessage('hi bob', general!.id, alice.id);
    const history = await bob.chat.fetchMessages(general!.id);
    expect(history.map((m) => [m.message, m.author?.username])).toEqual([
      ['hello from bob', bob.email],
      ['hi bob', alice.email],
    ]);

    // Alice may not delete Bob's message; Bob may, and Alice's client hears of it.
    expect(await alice.chat.deleteMessage(sent!.id)).toEqual([]);
    expect(await bob.chat.deleteMessage(sent!.id)).toHaveLength(1);
    await until('Alice hears of the deletion', () => deletedForAlice.some((old) => old.id === sent!.id));
    expect((await alice.chat.fetchMessages(general!.id)).map((m) => m.message)).toEqual(['hi bob']);
  });

  it('a moderator (from the sign-up trigger) deletes other users’ messages through the authorize() policy', async () => {
    const alice = await member('alice');
    const moderator = await member('mod', newEmail('mod').replace('@', '+supamod@'));
    expect(await moderator.chat.fetchUserRoles()).toEqual([expect.objectContaining({ role: 'moderator' })]);
    expect(await alice.chat.fetchUserRoles()).toEqual([]);

    const [channel] = await alice.chat.addChannel(`mods-${Date.now()}`, alice.id);
    const [message] = await alice.chat.addMessage('please remove me', channel!.id, alice.id);
    expect(await moderator.chat.deleteMessage(message!.id)).toHaveLength(1);
    // Channels need channels.delete, which moderators do not have.
    expect(await moderator.chat.deleteChannel(channel!.id)).toEqual([]);
    expect(await alice.chat.deleteChannel(channel!.id)).toHaveLength(1);
  });

  it('presence: both users see each other in the room; when one leaves, the other sees it', async () => {
    const alice = await member('alice');
    const bob = await member('bob');
    const room = `lobby-${Date.now()}`;
    let aliceSees: OnlineUser[] = [];
    let bobSees: OnlineUser[] = [];

    await alice.chat.joinRoom(room, { id: alice.id, username: 'alice' }, (online) => {
      aliceSees = online;
    });
    const bobsRoom: RealtimeChannel = await bob.chat.joinRoom(room, { id: bob.id, username: 'bob' }, (online) => {
      bobSees = online;
    });
    const names = (online: OnlineUser[]) => online.map((u) => u.username).sort();
    await until('both online for Alice', () => names(aliceSees).join() === 'alice,bob');
    await until('both online for Bob', () => names(bobSees).join() === 'alice,bob');
    expect(aliceSees.every((u) => typeof u.online_at === 'string')).toBe(true);

    await bob.chat.leaveRoom(bobsRoom);
    await until('Alice sees Bob leave', () => names(aliceSees).join() === 'alice');
  });
});
