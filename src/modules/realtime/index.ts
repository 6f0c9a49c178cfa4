// The realtime module's face: its plugin (socket server and admin routes), the admin service and
// the webhook delivery loop (tests tick it).
export { realtimePlugin } from './realtime.plugin.js';
export { createRealtimeAdminService, type RealtimeAdminService } from './realtime.service.js';
export { createWebhookWorker, type WebhookWorker } from './webhook-worker.js';
