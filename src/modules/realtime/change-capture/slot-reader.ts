// Reads the logical replication slot (pgoutput, through pg-logical-replication) and hands over
// whole committed transactions of watched tables, their values kept in the text form PostgreSQL
// sent (realtime.row_image turns them into the trigger's JSON). Nothing is confirmed here on
// receipt: the caller confirms a commit's end LSN once it is published, so a crash replays it.
// While nothing is pending, the keepalive's position is confirmed, so WAL written by other tables
// is not retained.
import { LogicalReplicationService, type Pgoutput, PgoutputPlugin } from 'pg-logical-replication';
import { type CapturedChange, PUBLICATION } from './change-capture.repo.js';
import { changeIdBase, formatLsn, parseLsn } from './lsn.js';

export interface CommittedTransaction {
  /** The end of its commit record: confirming it lets the slot drop everything before. */
  endLsn: bigint;
  changes: CapturedChange[];
}

/** A direct (non-pooled) connection's settings, as `pg` takes them. */
export interface DirectConnection {
  host: string;
  port: number;
  user: string;
  password?: string;
  database: string;
  application_name?: string;
}

export interface SlotReader {
  /** Settles when the stream ends: resolves on stop(), rejects on an error (the slot busy, a lost connection). */
  ended: Promise<void>;
  /** Every change up to `endLsn` (a commit's end) is published: the slot may forget it. */
  confirm(endLsn: bigint): void;
  stop(): Promise<void>;
}

type Row = Record<string, string | null>;

/** A tuple as the parser left it (column parsers replaced: text or null; undefined for an unsent TOAST value). */
const rowOf = (tuple: Record<string, unknown> | null): Row | null => {
  if (!tuple) return null;
  const row: Row = {};
  for (const [column, value] of Object.entries(tuple)) if (value !== undefined) row[column] = value as string | null;
  return row;
};

export function startSlotReader(options: {
  connection: DirectConnection;
  slot: string;
  onTransaction(tx: CommittedTransaction): void;
  /** Whether every transaction handed over so far is published. */
  drained(): boolean;
  /** The position already confirmed (published) when the stream starts. */
  confirmed: bigint;
}): SlotReader {
  const service = new LogicalReplicationService(
    { ...options.connection },
    // Never acknowledged on receipt nor on a timer: only what confirm() says is published.
    { acknowledge: { auto: false, timeoutSeconds: 0 } },
  );
  const plugin = new PgoutputPlugin({ protoVersion: 1, publicationNames: [PUBLICATION] });
  let confirmed = options.confirmed;
  let open: { commitLsn: bigint; xid: number; changes: CapturedChange[] } | null = null;
  let stopping = false;

  const acknowledge = () => {
    if (confirmed > 0n) void service.acknowledge(formatLsn(confirmed - 1n)); // the library sends lsn + 1
  };

  service.on('data', (_lsn: string, message: Pgoutput.Message) => {
    switch (message.tag) {
      case 'relation':
        // The value's text as sent, not the pg driver's JavaScript value: PostgreSQL's own input
        // functions read it back (exact timestamps, numerics, json, arrays, user types).
        for (const column of message.columns) column.parser = (raw: unknown) => raw;
        return;
      case 'begin':
        open = { commitLsn: parseLsn(message.commitLsn ?? '0/0'), xid: message.xid, changes: [] };
        return;
      case 'insert':
      case 'update':
      case 'delete': {
        if (!open) return;
        const op = message.tag === 'insert' ? 'INSERT' : message.tag === 'update' ? 'UPDATE' : 'DELETE';
        const newRow = message.tag === 'delete' ? null : rowOf(message.new);
        const oldRow = message.tag === 'insert' ? null : rowOf(message.old ?? message.key);
        open.changes.push({
          idBase: changeIdBase(open.commitLsn, open.changes.length + 1),
          xid: open.xid,
          relid: message.relation.relationOid,
          op,
          newRow,
          oldRow,
        });
        return;
      }
      case 'commit': {
        const tx = open;
        open = null;
        if (tx) options.onTransaction({ endLsn: parseLsn(message.commitEndLsn ?? '0/0'), changes: tx.changes });
        return;
      }
      default:
        return;
    }
  });
  service.on('heartbeat', (lsn: string, _timestamp: number, shouldRespond: boolean) => {
    // Nothing open or unpublished: everything the server sent so far is done with.
    if (!open && options.drained()) {
      const sent = parseLsn(lsn);
      if (sent > confirmed) {
        confirmed = sent;
        acknowledge();
        return;
      }
    }
    if (shouldRespond) acknowledge();
  });
  // Errors also reject `ended`; the listener keeps EventEmitter2 from throwing them.
  service.on('error', () => {});

  const ended = service.subscribe(plugin, options.slot).then(() => {
    if (!stopping) throw new Error('the replication stream ended');
  });
  return {
    ended,
    confirm(endLsn) {
      if (endLsn <= confirmed) return;
      confirmed = endLsn;
      acknowledge();
    },
    async stop() {
      stopping = true;
      await service.destroy();
      await ended.catch(() => {});
    },
  };
}
