// SQL for received processor events: one row per (provider, environment, event id), used to
// deduplicate deliveries and to tell a processor's retries of a failed event from replays of a done one.
import type { Queryable } from '../../core/db.js';
import type { Environment } from './processor.js';

export type Provider = 'stripe' | 'razorpay';
export type ProcessingStatus = 'pending' | 'processed' | 'failed' | 'ignored';

export interface WebhookEventRow {
  environment: Environment;
  processorEventId: string;
  eventType: string;
  livemode: boolean;
  objectType: string | null;
  objectId: string | null;
  processingStatus: ProcessingStatus;
  attemptCount: number;
  lastError: string | null;
  receivedAt: Date;
  processedAt: Date | null;
}

const columns = (db: Queryable) => db`
  environment, processor_event_id as "processorEventId", event_type as "eventType", livemode,
  object_type as "objectType", object_id as "objectId", processing_status as "processingStatus",
  attempt_count as "attemptCount", last_error as "lastError", received_at as "receivedAt", processed_at as "processedAt"`;

export interface EventInsert {
  provider: Provider;
  environment: Environment;
  id: string;
  type: string;
  livemode: boolean;
  objectType: string | null;
  objectId: string | null;
}

/**
 * Claims an event for processing (new, or a retry of a failed one) and locks its row for the
 * transaction; undefined when it was processed or ignored already (a replay).
 */
export async function claimEvent(db: Queryable, e: EventInsert, now: Date): Promise<WebhookEventRow | undefined> {
  const [row] = await db<WebhookEventRow[]>`
    insert into payments.webhook_events (provider, environment, processor_event_id, event_type, livemode, object_type, object_id,
      processing_status, attempt_count, received_at)
    values (${e.provider}, ${e.environment}, ${e.id}, ${e.type}, ${e.livemode}, ${e.objectType}, ${e.objectId}, 'pending', 1, ${now})
    on conflict (provider, environment, processor_event_id) do update set attempt_count = payments.webhook_events.attempt_count + 1
    where payments.webhook_events.processing_status in ('pending', 'failed')
    returning ${columns(db)}`;
  return row;
}

export async function findEvent(
  db: Queryable,
  provider: Provider,
  env: Environment,
  id: string,
): Promise<WebhookEventRow | undefined> {
  const [row] = await db<WebhookEventRow[]>`
    select ${columns(db)} from payments.webhook_events
    where provider = ${provider} and environment = ${env} and processor_event_id = ${id}`;
  return row;
}

export async function finishEvent(
  db: Queryable,
  provider: Provider,
  env: Environment,
  id: string,
  outcome: { status: ProcessingStatus; error: string | null },
  now: Date,
): Promise<WebhookEventRow> {
  const [row] = await db<WebhookEventRow[]>`
    update payments.webhook_events set processing_status = ${outcome.status}, last_error = ${outcome.error},
      processed_at = ${outcome.status === 'failed' ? null : now}
    where provider = ${provider} and environment = ${env} and processor_event_id = ${id}
    returning ${columns(db)}`;
  return row!;
}

/** Records a failed attempt (after its transaction rolled back), creating the row if needed. */
export async function recordFailure(db: Queryable, e: EventInsert, error: string, now: Date): Promise<WebhookEventRow> {
  const [row] = await db<WebhookEventRow[]>`
    insert into payments.webhook_events (provider, environment, processor_event_id, event_type, livemode, object_type, object_id,
      processing_status, attempt_count, last_error, received_at)
    values (${e.provider}, ${e.environment}, ${e.id}, ${e.type}, ${e.livemode}, ${e.objectType}, ${e.objectId}, 'failed', 1, ${error}, ${now})
    on conflict (provider, environment, processor_event_id) do update set processing_status = 'failed',
      attempt_count = payments.webhook_events.attempt_count + 1, last_error = excluded.last_error
    returning ${columns(db)}`;
  return row!;
}
