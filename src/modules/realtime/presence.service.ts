// Presence across servers: each subscribed socket is a row, a channel's members are the distinct
// members on live servers (heartbeats on the injected clock), and joins/leaves are announced to
// every server on the bus (NOTIFY in the transaction that made them; on a broker, right after its
// commit), so each server tells its own sockets.
import { randomUUID } from 'node:crypto';
import type postgres from 'postgres';
import { withTx } from '../../core/db.js';
import type { Deps } from '../../deps.js';
import { PRESENCE_TOPIC } from './bus-topics.js';
import * as repo from './presence.repo.js';

/** A server silent for this many heartbeat intervals is dead: its members leave their channels. */
const MISSED_HEARTBEATS = 3;

export interface PresenceMember {
  type: 'user' | 'anonymous';
  presenceId: string;
  joinedAt: string;
  /** What the member tracked (Supabase presence only). */
  meta?: unknown;
}

/** What a presence announcement carries: one event, the same bytes for every server. */
export interface PresenceEvent {
  kind: 'join' | 'leave';
  channel: string;
  member: PresenceMember;
  /** The socket that must not receive it (the joiner, the leaver), or null. */
  except: string | null;
  messageId: string;
  timestamp: string;
}

const wireMember = (row: repo.MemberRow): PresenceMember => ({
  type: row.type,
  presenceId: row.presenceId,
  joinedAt: row.joinedAt.toISOString(),
  ...(row.meta === undefined || row.meta === null ? {} : { meta: row.meta }),
});

/**
 * `onRevived` runs (within the heartbeat) when this server finds its row gone: it was taken for
 * dead (a pause past the TTL) and its members were dropped, so its sockets must join again.
 */
export function createPresence(
  deps: Pick<Deps, 'sql' | 'clock' | 'config' | 'bus'>,
  serverId: string,
  onRevived: () => Promise<void>,
) {
  const { sql, clock, bus } = deps;
  /** A transaction that announces presence events: they go out with (or right after) its commit. */
  const announcing = async <T>(
    work: (tx: postgres.TransactionSql, announce: (events: string[]) => Promise<void>) => Promise<T>,
  ) => {
    const outbox = bus.transactional();
    const result = await withTx(sql, (tx) => work(tx, (events) => outbox.add(tx, PRESENCE_TOPIC, events)));
    await outbox.flush();
    return result;
  };
  const intervalMs = deps.config.realtimeHeartbeatMs;
  const liveAfter = () => new Date(clock.now().getTime() - MISSED_HEARTBEATS * intervalMs);
  const event = (kind: PresenceEvent['kind'], channel: string, row: repo.MemberRow, except: string | null) =>
    JSON.stringify({
      kind,
      channel,
      member: wireMember(row),
      except,
      messageId: randomUUID(),
      timestamp: clock.now().toISOString(),
    } satisfies PresenceEvent);

  let lastBeat = Number.NEGATIVE_INFINITY;
  let beating: Promise<boolean> | undefined;

  /** Drops dead servers' members (announcing their leaves) in one transaction. */
  const sweep = () =>
    announcing(async (tx, announce) => {
      const gone = await repo.sweepDeadServers(tx, liveAfter());
      await announce(gone.map((row) => event('leave', row.channel, row, null)));
    });

  /** Heartbeat, the sweep, and a revival if needed; true when this server's row had gone. */
  const beat = (): Promise<boolean> => {
    beating ??= (async () => {
      try {
        const now = clock.now();
        const revived = await repo.heartbeat(sql, serverId, now);
        lastBeat = now.getTime();
        await sweep();
        if (revived) await onRevived();
        return revived;
      } finally {
        beating = undefined;
      }
    })();
    return beating;
  };

  return {
    serverId,
    beat,
    /** Beats first when the last heartbeat is an interval old (by the injected clock). */
    async fresh(): Promise<void> {
      if (clock.now().getTime() - lastBeat >= intervalMs) await beat();
    },

    /** Adds a socket to a channel: the members after it (the caller included), and whether it is new. */
    join(channel: string, socketId: string, member: Omit<repo.MemberRow, 'joinedAt'>) {
      return announcing(async (tx, announce) => {
        await repo.lockMember(tx, channel, member.presenceId);
        const present = await repo.memberPresent(tx, channel, member.presenceId, liveAfter());
        const row = { ...member, joinedAt: clock.now() };
        await repo.insertPresence(tx, { channel, socketId, serverId, member: row });
        const members = await repo.channelMembers(tx, channel, liveAfter());
        if (!present) await announce([event('join', channel, row, socketId)]);
        return { members: members.map(wireMember), joined: !present };
      });
    },

    /** A channel's members on live servers (a transport that shows them before its socket joins). */
    async members(channel: string): Promise<PresenceMember[]> {
      return (await repo.channelMembers(sql, channel, liveAfter())).map(wireMember);
    },

    /** Removes a socket from a channel; announces the leave when it was the member's last socket. */
    leave(channel: string, socketId: string, presenceId: string, except: string | null) {
      return announcing(async (tx, announce) => {
        await repo.lockMember(tx, channel, presenceId);
        const row = await repo.deletePresence(tx, channel, socketId);
        if (!row) return;
        if (!(await repo.memberPresent(tx, channel, presenceId, liveAfter()))) {
          await announce([event('leave', channel, row, except)]);
        }
      });
    },

    /** Graceful stop: this server is dead at once, and its members leave everywhere. */
    async retire(): Promise<void> {
      await repo.retireServer(sql, serverId);
      await sweep();
    },
  };
}
