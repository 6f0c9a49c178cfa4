// SQL for the processor connection of each environment (payments.connections), and the names of
// the reserved secrets its keys are kept under (the secrets module stores them).
import type { Queryable } from '../../core/db.js';
import type { Environment } from './processor.js';
import { jsonText } from '../../core/json-guard.js';

export const secretKeyName = (env: Environment) => `PROCESSOR_${env.toUpperCase()}_SECRET_KEY`;
export const webhookSecretName = (env: Environment) => `PROCESSOR_${env.toUpperCase()}_WEBHOOK_SECRET`;

export interface ConnectionRow {
  environment: Environment;
  processorAccountId: string | null;
  processorAccountEmail: string | null;
  accountLivemode: boolean | null;
  webhookEndpointId: string | null;
  webhookEndpointUrl: string | null;
  webhookConfiguredAt: Date | null;
  lastSyncedAt: Date | null;
  lastSyncStatus: 'succeeded' | 'failed' | null;
  lastSyncError: string | null;
  lastSyncCounts: Record<string, number> | null;
}

export async function listConnections(db: Queryable): Promise<ConnectionRow[]> {
  return db<ConnectionRow[]>`
    select environment, processor_account_id as "processorAccountId",
      processor_account_email as "processorAccountEmail", account_livemode as "accountLivemode",
      webhook_endpoint_id as "webhookEndpointId", webhook_endpoint_url as "webhookEndpointUrl",
      webhook_configured_at as "webhookConfiguredAt",
      last_synced_at as "lastSyncedAt", last_sync_status as "lastSyncStatus",
      last_sync_error as "lastSyncError", last_sync_counts as "lastSyncCounts"
    from payments.connections order by environment`;
}

export async function upsertConnection(
  db: Queryable,
  env: Environment,
  account: { id: string; email: string | null; livemode: boolean },
  now: Date,
): Promise<void> {
  await db`
    insert into payments.connections (environment, processor_account_id, processor_account_email, account_livemode, updated_at)
    values (${env}, ${account.id}, ${account.email}, ${account.livemode}, ${now})
    on conflict (environment) do update set processor_account_id = excluded.processor_account_id,
      processor_account_email = excluded.processor_account_email,
      account_livemode = excluded.account_livemode, updated_at = excluded.updated_at,
      -- A webhook endpoint belongs to the account it was created in.
      webhook_endpoint_id = case when payments.connections.processor_account_id = excluded.processor_account_id then payments.connections.webhook_endpoint_id end,
      webhook_endpoint_url = case when payments.connections.processor_account_id = excluded.processor_account_id then payments.connections.webhook_endpoint_url end,
      webhook_configured_at = case when payments.connections.processor_account_id = excluded.processor_account_id then payments.connections.webhook_configured_at end`;
}

export async function recordWebhookEndpoint(
  db: Queryable,
  env: Environment,
  endpoint: { id: string; url: string },
  now: Date,
): Promise<void> {
  await db`
    update payments.connections set webhook_endpoint_id = ${endpoint.id}, webhook_endpoint_url = ${endpoint.url},
      webhook_configured_at = ${now}, updated_at = ${now}
    where environment = ${env}`;
}

export async function recordSync(
  db: Queryable,
  env: Environment,
  outcome: { status: 'succeeded' | 'failed'; error: string | null; counts: Record<string, number> | null },
  now: Date,
): Promise<void> {
  await db`
    update payments.connections set last_synced_at = ${now}, last_sync_status = ${outcome.status},
      last_sync_error = ${outcome.error}, last_sync_counts = ${outcome.counts === null ? null : jsonText(outcome.counts)}::text::jsonb,
      updated_at = ${now}
    where environment = ${env}`;
}

export async function deleteConnection(db: Queryable, env: Environment): Promise<void> {
  await db`delete from payments.connections where environment = ${env}`;
}

/** Forgets every mirrored row of an environment (its processor account changed or was removed). */
export async function clearMirror(db: Queryable, env: Environment): Promise<void> {
  await db`delete from payments.subscriptions where environment = ${env}`;
  await db`delete from payments.prices where environment = ${env}`;
  await db`delete from payments.products where environment = ${env}`;
  await db`delete from payments.customers where environment = ${env}`;
  await db`delete from payments.customer_mappings where environment = ${env}`;
  await db`delete from payments.payment_history where environment = ${env}`;
}
