// The logs module's face: the installer app.ts calls before the modules register (request hooks,
// writer, the /api/logs plugin) and the service type (flush, drops, maintenance, search).
export { installLogging, type LoggingSetup } from './logs.plugin.js';
export type { LogsService } from './logs.service.js';
