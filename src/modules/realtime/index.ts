// The realtime module's face: its plugin (socket server and admin routes) and the admin service.
export { realtimePlugin } from './realtime.plugin.js';
export { createRealtimeAdminService, type RealtimeAdminService } from './realtime.service.js';
