// The realtime module's face: its plugin (socket server and admin routes), the admin service,
// the webhook delivery loop (tests tick it), the refusal counts metrics report, and the
// re-pointing of its table references after a restore (backups).
export { realtimePlugin } from './realtime.plugin.js';
export { createRealtimeRefusals, type RealtimeRefusals } from './realtime-refusals.js';
export { createRealtimeAdminService, type RealtimeAdminService } from './realtime.service.js';
export { createWebhookWorker, type WebhookWorker } from './webhook-worker.js';
export { rekeyTableReferences } from './table-oids.repo.js';
