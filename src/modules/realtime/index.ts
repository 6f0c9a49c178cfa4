// The realtime module's face: its plugin (socket server and admin routes), the admin service,
// the webhook delivery loop (tests tick it), the refusal counts metrics report, and the
// re-pointing of its table references after a restore (backups), and table changes from logical
// replication (change capture: its plugin, the capture itself and its gauges).
export { realtimePlugin } from './realtime.plugin.js';
export { createRealtimeRefusals, type RealtimeRefusals } from './realtime-refusals.js';
export { createRealtimeAdminService, type RealtimeAdminService } from './realtime.service.js';
export { createWebhookWorker, type WebhookWorker } from './webhook-worker.js';
export { rekeyTableReferences } from './table-oids.repo.js';
export { realtimeEngineOf, type RealtimeEngine, SUPABASE_CHANNEL_PREFIX, type TransportSink } from './transports.js';
export type { DeliverableMessage } from './delivery.repo.js';
export type { PresenceEvent, PresenceMember } from './presence.service.js';
export type { ReadableColumns } from './readable-columns.js';
export { judgeRowChange, type RowChange } from './row-changes.js';
export type { ReadNow } from './row-visibility.repo.js';
export { measurePayload } from './publish-rules.js';
export { createEventBudget, type EventBudget } from './socket-event-budget.js';
export { isCapacityFailure, BUSY, RATE_LIMITED, BYTES_LIMITED, userOf } from './socket-replies.js';
export { readableColumns } from './readable-columns.repo.js';
export { announceMessages, MESSAGE_TOPIC, PRESENCE_TOPIC } from './bus-topics.js';
export { outboxLines } from './access.repo.js';
export { changeCapturePlugin, createChangeCapture, registerChangeCaptureMetrics } from './change-capture/index.js';
