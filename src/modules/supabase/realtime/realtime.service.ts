// Broadcast from REST (Supabase's POST /realtime/v1/api/broadcast): each message stored as a
// realtime.messages row on its topic's channel, so the shared delivery sends it to every server's
// joins. Public topics take any key holder's message; private ones are judged by the INSERT
// policies of realtime.messages under the caller's role and claims (the service key writes as
// the server). Private messages go first, in one transaction: a refusal stores nothing.
import { AppError } from '../../../core/errors.js';
import { asPgError } from '../../../core/pg-errors.js';
import { type Principal, scopeOf } from '../../../core/principal.js';
import type { Deps } from '../../../deps.js';
import { announceMessages, measurePayload } from '../../realtime/index.js';
import { type BroadcastRow, insertBroadcasts } from './realtime.repo.js';
import type { BroadcastBody } from './realtime.schemas.js';
import { channelOf } from './topics.js';

export function createBroadcastService(deps: Pick<Deps, 'sql' | 'config' | 'bus'>) {
  /** On a broker, the server announces what it stored after the commit (no NOTIFY). */
  const collect = deps.bus.engine !== 'postgres';
  return {
    async send(principal: Principal, body: BroadcastBody): Promise<void> {
      const rows: BroadcastRow[] = body.messages.map((m, i) => {
        const measured = measurePayload(
          { event: m.event, payload: m.payload ?? {} },
          deps.config.realtimeMaxPayloadBytes,
        );
        if (!measured.ok) {
          throw new AppError('VALIDATION_ERROR', `messages[${i}]: ${measured.refusal.message}`);
        }
        const isPrivate = m.private === true;
        return {
          channel: channelOf(m.topic, isPrivate),
          topic: m.topic,
          event: m.event,
          payloadJson: measured.json ?? '{}',
          private: isPrivate,
          senderType: principal.kind === 'admin' ? 'system' : 'user',
          senderId: principal.kind === 'user' ? principal.userId : null,
        };
      });
      const judged = principal.kind === 'admin' ? [] : rows.filter((r) => r.private);
      try {
        if (judged.length > 0) {
          const stored = await insertBroadcasts(
            deps.sql,
            scopeOf(principal, deps.config.statementTimeouts),
            judged,
            collect,
          );
          await announceMessages(deps.bus, stored);
        }
      } catch (err) {
        if (asPgError(err)?.code === '42501') {
          throw new AppError('INSUFFICIENT_PERMISSIONS', 'Not allowed to broadcast to this private topic.', {
            nextActions: 'Add an INSERT policy on realtime.messages for this topic, or send with the service key.',
          });
        }
        throw err;
      }
      const free = rows.filter((r) => !judged.includes(r));
      if (free.length > 0) await announceMessages(deps.bus, await insertBroadcasts(deps.sql, null, free, collect));
    },
  };
}
export type BroadcastService = ReturnType<typeof createBroadcastService>;
