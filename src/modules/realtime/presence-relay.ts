// Presence events as this server's sockets see them: each event of any server relayed to the
// sockets of its channel here (Socket.IO rooms, pseudonyms for masked sockets, the other
// transports' sinks), and what those sockets were last told, per channel, so that after a lost
// bus connection (events missed) the server tells them the difference to the stored members.
import { randomUUID } from 'node:crypto';
import type { Server } from 'socket.io';
import type { Clock } from '../../core/clock.js';
import { roomOf } from './delivery.js';
import type { createMemberMask } from './presence-privacy.js';
import type { PresenceEvent, PresenceMember } from './presence.service.js';
import type { TransportSink } from './transports.js';

/** The sockets of a channel that see its signed-in members under pseudonyms. */
export const maskedRoomOf = (channel: string) => `presence-masked:${channel}`;

export interface PresenceRelayOptions {
  io: Server;
  sinks: TransportSink[];
  mask: ReturnType<typeof createMemberMask>;
  clock: Clock;
  /** The stored members of a channel on live servers. */
  members(channel: string): Promise<PresenceMember[]>;
}

export function createPresenceRelay(options: PresenceRelayOptions) {
  const { io, sinks, mask } = options;
  /** Per channel with sockets here: the members they were told about, by presence id. */
  const told = new Map<string, Map<string, PresenceMember>>();

  const hasLocalSockets = (channel: string) =>
    (io.of('/').adapter.rooms.get(roomOf(channel))?.size ?? 0) > 0 || sinks.some((sink) => sink.wants(channel));

  const emit = (event: PresenceEvent) => {
    for (const sink of sinks) sink.presence(event);
    const meta = {
      channel: event.channel,
      messageId: event.messageId,
      senderType: 'system',
      timestamp: event.timestamp,
    };
    const masked = maskedRoomOf(event.channel);
    const except = event.except ? [masked, event.except] : [masked];
    io.local.to(roomOf(event.channel)).except(except).emit(`presence:${event.kind}`, { member: event.member, meta });
    const hidden = io.local.to(masked);
    (event.except ? hidden.except(event.except) : hidden).emit(`presence:${event.kind}`, {
      member: mask(event.channel, event.member),
      meta,
    });
  };

  /** Whether the event changes what this channel's sockets were told (a repeat does not). */
  const record = (event: PresenceEvent): boolean => {
    const members = told.get(event.channel);
    if (!members) return true;
    const id = event.member.presenceId;
    if (event.kind === 'join') {
      if (members.has(id)) return false;
      members.set(id, event.member);
    } else if (!members.delete(id)) return false;
    return true;
  };

  return {
    /** A presence event of any server (as published on the bus). */
    relay(text: string): void {
      const event = JSON.parse(text) as PresenceEvent;
      if (record(event)) emit(event);
    },

    /**
     * A socket here joined the channel and was given these members: they start the channel's
     * record when it has none (from then on, events keep it; an event already in it is not told again).
     */
    joined(channel: string, members: PresenceMember[]): void {
      if (!told.has(channel)) told.set(channel, new Map(members.map((m) => [m.presenceId, m])));
    },

    /**
     * After the bus reconnected: for each channel with sockets here, the joins and leaves between
     * what they were told and the stored members, told to them now. Channels without sockets here
     * are forgotten.
     */
    async resync(): Promise<void> {
      for (const [channel, known] of told) {
        if (!hasLocalSockets(channel)) {
          told.delete(channel);
          continue;
        }
        const stored = new Map((await options.members(channel)).map((m) => [m.presenceId, m]));
        const timestamp = options.clock.now().toISOString();
        const tell = (kind: PresenceEvent['kind'], member: PresenceMember) =>
          emit({ kind, channel, member, except: null, messageId: randomUUID(), timestamp });
        for (const [id, member] of known) {
          if (stored.has(id)) continue;
          known.delete(id);
          tell('leave', member);
        }
        for (const [id, member] of stored) {
          if (known.has(id)) continue;
          known.set(id, member);
          tell('join', member);
        }
      }
    },
  };
}
