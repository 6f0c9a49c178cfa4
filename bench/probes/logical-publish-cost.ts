// Question: what does PostgreSQL spend publishing a batch of 1,000 captured changes (2,000 messages)
//   with one realtime.publish_captured_change call per change (pipelined in one transaction) against
//   one set-based realtime.publish_captured_changes statement, and how much of the latter is the
//   triggers on realtime.messages and the row images?
// Last answer: 2026-11-29, 2-core VM shared with other sessions (load average 13-17). Medians of
//   the last run (5 rounds): per change 843 ms, set-based 215 ms (about 4x less), set-based with the
//   messages' triggers off (session_replication_role = replica) 190 ms, the 1,000 row images alone
//   (one row_image call each) 54 ms. Over three runs: 727-4,780 / 175-650 / 71-487 / 35-223 ms. The
//   per-call overhead, not the row images, was most of the old cost.
//
// `npx tsx bench/probes/logical-publish-cost.ts`: a wal_level=logical cluster of its own (the test
// harness's), one watched table, synthetic changes with distinct ids (so every message is stored).
import postgres from 'postgres';
import { startLogicalCluster } from '../../test/harness/logical-postgres.js';

const N = 1000;
const ROUNDS = 5;

const cluster = await startLogicalCluster();
const sql = postgres(await cluster.createDatabase(), { max: 1, onnotice: () => {} });
try {
  await sql.unsafe(`create table public.events (id bigserial primary key, body text not null, at timestamptz default now());
    select realtime.watch_table('public.events');`);
  const [table] = await sql<{ oid: number }[]>`select 'public.events'::regclass::oid as oid`;
  const oid = table!.oid;
  let lsn = 1n << 32n;
  const batch = () =>
    Array.from({ length: N }, (_, i) => ({
      // A change's id base as the leader makes it: commit LSN (16 hex), position 1 (12 hex).
      i: `${(lsn++).toString(16).padStart(16, '0')}000000000001`,
      r: oid,
      o: 'INSERT',
      n: { id: String(i + 1), body: 'x', at: '2026-01-01 00:00:00+00' },
    }));
  const timed = async (run: () => Promise<unknown>) => {
    const started = performance.now();
    await run();
    return Math.round(performance.now() - started);
  };
  const ms: Record<string, number[]> = { perChange: [], set: [], setWithoutTriggers: [], rowImagesOnly: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const perChange = batch();
    ms.perChange!.push(
      await timed(() =>
        sql.begin((tx) =>
          Promise.all(
            perChange.map(
              (c) =>
                tx`select realtime.publish_captured_change(${c.i}, ${c.r}::oid, ${c.o}, ${JSON.stringify(c.n)}::text::jsonb, null)`,
            ),
          ),
        ),
      ),
    );
    const set = JSON.stringify(batch());
    ms.set!.push(await timed(() => sql`select realtime.publish_captured_changes(${set}::text::jsonb)`));
    const quiet = JSON.stringify(batch());
    ms.setWithoutTriggers!.push(
      await timed(() =>
        sql.begin(async (tx) => {
          await tx`set local session_replication_role = replica`;
          await tx`select realtime.publish_captured_changes(${quiet}::text::jsonb)`;
        }),
      ),
    );
    const images = JSON.stringify(batch());
    ms.rowImagesOnly!.push(
      await timed(
        () =>
          sql`select count(realtime.row_image(${oid}::oid, c -> 'n')) from jsonb_array_elements(${images}::text::jsonb) c`,
      ),
    );
  }
  console.log(`publishing ${N} captured changes (${N * 2} messages), ms per batch over ${ROUNDS} rounds:`);
  for (const [name, values] of Object.entries(ms)) console.log(`  ${name.padEnd(20)} ${values.join(', ')}`);
} finally {
  await sql.end();
  await cluster.stop();
}
