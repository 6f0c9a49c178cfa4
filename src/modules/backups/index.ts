// The backups module's face: its plugin (admin routes under /api/database/backups).
export { backupsPlugin } from './backups.plugin.js';
export { takeUpgradeBackup, type UpgradeBackup } from './upgrade-backup.service.js';
