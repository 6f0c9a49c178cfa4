// The change capture's gauges (logical mode only): WAL the slot retains and has not confirmed,
// whether this server leads, and the changes it published and skipped. One slot query per scrape.
import { Gauge, type Registry } from 'prom-client';
import type { CaptureStatus, ChangeCapture } from './change-capture.service.js';

export function registerChangeCaptureMetrics(capture: ChangeCapture, registry: Registry): void {
  if (capture.mode !== 'logical') return;
  let scrape: Promise<CaptureStatus> | undefined;
  // The first gauge collected in a scrape queries; the others of the same scrape reuse it.
  const current = () => {
    scrape ??= capture.status().finally(() => setImmediate(() => (scrape = undefined)));
    return scrape;
  };
  const gauge = (name: string, help: string, pick: (s: CaptureStatus) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        this.set(pick(await current()));
      },
    });
  gauge(
    'plinth_realtime_changes_retained_wal_bytes',
    'WAL the change capture slot keeps on the primary (pg_replication_slots: current position − restart_lsn)',
    (s) => s.retainedWalBytes,
  );
  gauge(
    'plinth_realtime_changes_unconfirmed_wal_bytes',
    'WAL the change capture slot has sent or holds but not seen confirmed as published (current position − confirmed_flush_lsn)',
    (s) => s.unconfirmedWalBytes,
  );
  gauge('plinth_realtime_changes_leader', '1 when this server reads the change capture slot', (s) =>
    s.role === 'leader' ? 1 : 0,
  );
  gauge(
    'plinth_realtime_changes_published_total',
    'Table changes this server published from the slot, since start',
    (s) => s.published,
  );
  gauge(
    'plinth_realtime_changes_skipped_total',
    'Table changes this server could not publish and skipped, since start',
    (s) => s.skipped,
  );
}
