// Capacity of this server's socket layer: how many sockets one client IP and one signed-in user
// may hold (checked at the handshake), and the event budgets shared by all sockets of one IP and
// by the whole server (on top of each socket's own). Refusals are "busy", retryable: never
// "unauthorized", and counted (realtime-refusals.ts).
import type { Clock } from '../../core/clock.js';
import type { RealtimeRefusals, RefusalReason } from './realtime-refusals.js';
import { createEventBudget, type EventBudget } from './socket-event-budget.js';

export interface AdmissionLimits {
  maxSocketsPerIp: number;
  maxSocketsPerUser: number;
  ipEventsPerSecond: number;
  serverEventsPerSecond: number;
}

export interface SocketTicket {
  /** Takes one event from the IP's and the server's budgets; the reason when one is spent. */
  takeEvent(): RefusalReason | null;
  /** The socket closed: its places are given back (idempotent). */
  release(): void;
}

interface IpEntry {
  sockets: number;
  budget: EventBudget;
}

export function createSocketAdmission(clock: Clock, limits: AdmissionLimits, refusals: RealtimeRefusals) {
  const byIp = new Map<string, IpEntry>();
  const byUser = new Map<string, number>();
  const server = createEventBudget(clock, limits.serverEventsPerSecond);

  return {
    /** A place for a new socket of `ip` (and `user`, when signed in); the reason when refused. */
    admit(ip: string, user: string | null): SocketTicket | { refused: RefusalReason } {
      const entry = byIp.get(ip) ?? { sockets: 0, budget: createEventBudget(clock, limits.ipEventsPerSecond) };
      if (entry.sockets >= limits.maxSocketsPerIp) {
        refusals.count('sockets_per_ip');
        return { refused: 'sockets_per_ip' };
      }
      if (user !== null && (byUser.get(user) ?? 0) >= limits.maxSocketsPerUser) {
        refusals.count('sockets_per_user');
        return { refused: 'sockets_per_user' };
      }
      entry.sockets += 1;
      byIp.set(ip, entry);
      if (user !== null) byUser.set(user, (byUser.get(user) ?? 0) + 1);
      let released = false;
      return {
        takeEvent() {
          const reason = !entry.budget.take() ? 'ip_events' : !server.take() ? 'server_events' : null;
          if (reason) refusals.count(reason);
          return reason;
        },
        release() {
          if (released) return;
          released = true;
          entry.sockets -= 1;
          if (entry.sockets === 0) byIp.delete(ip);
          if (user === null) return;
          const left = (byUser.get(user) ?? 1) - 1;
          if (left === 0) byUser.delete(user);
          else byUser.set(user, left);
        },
      };
    },
  };
}
