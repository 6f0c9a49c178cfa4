// The backups module's face: its plugin (admin routes under /api/database/backups).
export { backupsPlugin } from './backups.plugin.js';
