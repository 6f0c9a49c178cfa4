// Read replicas' metrics (issue 38), set from the read router's own counters at scrape time: each
// replica's lag, whether it is in the rotation and the reads it served; reads that ran on the
// primary instead (no replica in rotation, or read-your-writes), waits for a replica to replay a
// write, and reads a replica failed that ran again on the primary.
import { Gauge, type Registry } from 'prom-client';
import type { RouterStats } from '../../platform/read-replicas/index.js';

export function registerReplicaMetrics(registry: Registry, stats: () => RouterStats): void {
  const gauge = (name: string, help: string, labelNames: string[], set: (g: Gauge, s: RouterStats) => void) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        set(this, stats());
      },
    });
  gauge('plinth_db_replica_lag_seconds', 'Replay lag of each read replica behind the primary', ['replica'], (g, s) => {
    for (const r of s.replicas) g.set({ replica: r.name }, r.lagMs / 1000);
  });
  gauge(
    'plinth_db_replica_in_rotation',
    'Whether each read replica takes reads now (1) or left the rotation: lagging or not answering (0)',
    ['replica'],
    (g, s) => {
      for (const r of s.replicas) g.set({ replica: r.name }, r.inRotation ? 1 : 0);
    },
  );
  gauge('plinth_db_replica_reads_total', 'Reads each read replica served, since start', ['replica'], (g, s) => {
    for (const r of s.replicas) g.set({ replica: r.name }, r.reads);
  });
  gauge(
    'plinth_db_replica_primary_reads_total',
    'Replica-eligible reads that ran on the primary, by reason (no_replica: none in rotation; read_your_writes: none had replayed the caller’s write), since start',
    ['reason'],
    (g, s) => {
      g.set({ reason: 'no_replica' }, s.primaryReads.noReplica);
      g.set({ reason: 'read_your_writes' }, s.primaryReads.readYourWrites);
    },
  );
  gauge(
    'plinth_db_replica_waits_total',
    'Reads that waited for a replica to replay the caller’s write, by outcome (caught_up, timed_out), since start',
    ['outcome'],
    (g, s) => {
      g.set({ outcome: 'caught_up' }, s.waits.caughtUp);
      g.set({ outcome: 'timed_out' }, s.waits.timedOut);
    },
  );
  gauge(
    'plinth_db_replica_fallbacks_total',
    'Reads a replica failed that ran again on the primary, by fault (unavailable: the replica left the rotation; behind: a recovery conflict or a migration not replayed yet), since start',
    ['fault'],
    (g, s) => {
      g.set({ fault: 'unavailable' }, s.fallbacks.unavailable);
      g.set({ fault: 'behind' }, s.fallbacks.behind);
    },
  );
}
