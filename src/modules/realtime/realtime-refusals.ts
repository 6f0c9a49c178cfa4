// Counts of realtime work refused for capacity or abuse (socket caps, event and byte budgets, a
// busy database), by reason, since start: what GET /metrics reports as
// plinth_realtime_refused_total. Counted instead of logged, so a flood cannot flood the log.

export type RefusalReason =
  | 'sockets_per_ip'
  | 'sockets_per_user'
  | 'socket_events'
  | 'socket_bytes'
  | 'ip_events'
  | 'server_events'
  | 'database_busy'
  | 'payload_too_large'
  | 'reserved_event';

export interface RealtimeRefusals {
  count(reason: RefusalReason): void;
  /** Every reason counted so far and its count. */
  counts(): ReadonlyMap<RefusalReason, number>;
}

export function createRealtimeRefusals(): RealtimeRefusals {
  const counts = new Map<RefusalReason, number>();
  return {
    count(reason) {
      counts.set(reason, (counts.get(reason) ?? 0) + 1);
    },
    counts: () => counts,
  };
}
