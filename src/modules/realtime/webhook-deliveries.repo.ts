// SQL of the webhook delivery queue (realtime.webhook_deliveries): claiming due deliveries with
// FOR UPDATE SKIP LOCKED and a lease (so two servers never attempt one delivery at once),
// recording each attempt's outcome (only by the claim that made it), the delivery log and a retry.
import type { Queryable } from '../../core/db.js';

export interface ClaimedDelivery {
  id: string;
  url: string;
  attempts: number;
  messageId: string;
  eventName: string;
  channelName: string;
  senderType: 'system' | 'user';
  senderId: string | null;
  payload: unknown;
}

export interface DeliveryRow {
  id: string;
  messageId: string;
  url: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt: Date;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: Date | null;
  createdAt: Date;
}

/** Due deliveries (never attempted, or whose next attempt is due at `now`), leased until `leaseUntil`. */
export function claimDue(db: Queryable, now: Date, leaseUntil: Date, limit: number): Promise<ClaimedDelivery[]> {
  return db<ClaimedDelivery[]>`
    with due as (
      select id from realtime.webhook_deliveries
      where state = 'pending' and (attempts = 0 or next_attempt_at <= ${now})
      order by next_attempt_at, id limit ${limit}
      for update skip locked
    ), claimed as (
      update realtime.webhook_deliveries d
      set attempts = d.attempts + 1, next_attempt_at = ${leaseUntil}
      from due where d.id = due.id
      returning d.id, d.url, d.attempts, d.message_id
    )
    select c.id, c.url, c.attempts, c.message_id as "messageId", m.event_name as "eventName",
      m.channel_name as "channelName", m.sender_type as "senderType", m.sender_id as "senderId", m.payload
    from claimed c join realtime.messages m on m.id = c.message_id`;
}

/** A 2xx answer: delivered, and counted on the message. False when the claim was lost. */
export async function recordDelivered(
  db: Queryable,
  claim: { id: string; attempts: number },
  status: number,
  now: Date,
): Promise<boolean> {
  const rows = await db`
    with d as (
      update realtime.webhook_deliveries
      set state = 'delivered', delivered_at = ${now}, last_status = ${status}, last_error = null
      where id = ${claim.id} and attempts = ${claim.attempts} and state = 'pending'
      returning message_id
    )
    update realtime.messages m set wh_delivered_count = m.wh_delivered_count + 1
    from d where m.id = d.message_id returning m.id`;
  return rows.length > 0;
}

/** A failed attempt: tried again at `nextAttemptAt`, or given up (`final`). */
export async function recordFailure(
  db: Queryable,
  claim: { id: string; attempts: number },
  outcome: { status: number | null; error: string; nextAttemptAt: Date; final: boolean },
): Promise<void> {
  await db`
    update realtime.webhook_deliveries
    set last_status = ${outcome.status}, last_error = ${outcome.error}, next_attempt_at = ${outcome.nextAttemptAt},
      state = ${outcome.final ? 'failed' : 'pending'}
    where id = ${claim.id} and attempts = ${claim.attempts} and state = 'pending'`;
}

const DELIVERY_COLUMNS = `id, message_id as "messageId", url, state, attempts, next_attempt_at as "nextAttemptAt",
  last_status as "lastStatus", last_error as "lastError", delivered_at as "deliveredAt", created_at as "createdAt"`;

export function listDeliveries(
  db: Queryable,
  filter: { messageId?: string; state?: string; limit: number; offset: number },
): Promise<DeliveryRow[]> {
  return db<DeliveryRow[]>`
    select ${db.unsafe(DELIVERY_COLUMNS)} from realtime.webhook_deliveries
    where (${filter.messageId ?? null}::uuid is null or message_id = ${filter.messageId ?? null}::uuid)
      and (${filter.state ?? null}::text is null or state = ${filter.state ?? null}::text)
    order by created_at desc, id limit ${filter.limit} offset ${filter.offset}`;
}

/** Due again at once, with its attempts counted from zero; undefined when there is no such delivery. */
export async function retryDelivery(db: Queryable, id: string, now: Date): Promise<DeliveryRow | undefined> {
  const [row] = await db<DeliveryRow[]>`
    update realtime.webhook_deliveries set state = 'pending', attempts = 0, next_attempt_at = ${now}
    where id = ${id} returning ${db.unsafe(DELIVERY_COLUMNS)}`;
  return row;
}
