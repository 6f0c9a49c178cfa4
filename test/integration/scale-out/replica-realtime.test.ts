// Realtime visibility checks on a read replica (real streaming replication on loopback): a table
// change reaches the subscriber allowed to see it and no other. The check of the row as it is now
// runs on the replica once it has replayed the change. The replica applies each commit 400 ms late,
// so a check run on it without waiting would miss the new row and drop the event.
import type { InsForgeClient } from '@insforge/sdk';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ReplicatedCluster, startReplicatedCluster } from '../../harness/replica.js';
import { type SdkApp, startSdkApp } from '../sdk/sdk-app.js';

let cluster: ReplicatedCluster;
let s: SdkApp;
const clients: InsForgeClient[] = [];

beforeAll(async () => {
  cluster = await startReplicatedCluster();
  s = await startSdkApp({
    env: {
      REALTIME_HEARTBEAT_MS: '3600000',
      DATABASE_URL: cluster.primaryUrl,
      DATABASE_REPLICA_URLS: cluster.replicaUrl,
      DATABASE_REPLICA_MAX_LAG_MS: '3000',
      DATABASE_REPLICA_CHECK_INTERVAL_MS: '50',
      DATABASE_REPLICA_WAIT_MS: '2000',
    },
  });
  await s.t.deps.sql.unsafe(`
    create table public.posts (id bigserial primary key, owner uuid not null, body text not null);
    alter table public.posts enable row level security;
    create policy posts_own on public.posts for select to authenticated using (owner = auth.uid());
    grant select on public.posts to authenticated;
    select realtime.watch_table('public.posts');`);
  await cluster.caughtUp();
  await cluster.setApplyDelay(400);
}, 180_000);

afterAll(async () => {
  for (const client of clients) client.realtime.disconnect();
  await s?.close();
  await cluster?.close();
});

async function subscriber(accessToken: string) {
  const client = s.client({ accessToken });
  clients.push(client);
  await client.realtime.connect();
  const seen: string[] = [];
  let wake: (() => void) | undefined;
  client.realtime.on('INSERT', (body: { new?: { body?: string } }) => {
    seen.push(String(body.new?.body));
    wake?.();
  });
  expect((await client.realtime.subscribe('table:public.posts')).ok).toBe(true);
  const until = (body: string) =>
    new Promise<void>((resolve) => {
      if (seen.includes(body)) return resolve();
      wake = () => seen.includes(body) && resolve();
    });
  return { seen, until };
}

it('delivers a change to the subscriber who may see it, judged on the replica', async () => {
  const alice = await s.t.signUp();
  const bob = await s.t.signUp();
  const aliceSub = await subscriber(alice.accessToken);
  const bobSub = await subscriber(bob.accessToken);
  const before = s.t.deps.replicas.stats();
  for (const body of ['first', 'second', 'third']) {
    await s.t.deps.sql`insert into public.posts (owner, body) values (${alice.user.id}, ${body})`;
  }
  await aliceSub.until('third');
  expect(aliceSub.seen).toEqual(['first', 'second', 'third']);
  // Bob's socket is judged in the same checks; a marker of his own proves his events flow.
  await s.t.deps.sql`insert into public.posts (owner, body) values (${bob.user.id}, ${'bob marker'})`;
  await bobSub.until('bob marker');
  expect(bobSub.seen).toEqual(['bob marker']);
  // The checks ran on the replica: at least one for Alice's changes (those announced together are
  // judged in one check) and one for Bob's marker, made after hers were delivered.
  const after = s.t.deps.replicas.stats();
  expect((after.replicas[0]?.reads ?? 0) - (before.replicas[0]?.reads ?? 0)).toBeGreaterThanOrEqual(2);
});
