// The schedules module's face: its plugin (admin routes) and the scheduler loop main.ts starts
// and stops (tests tick it with the injected clock).
export { schedulesPlugin } from './schedules.plugin.js';
export { createScheduler, type Scheduler, type TickReport } from './scheduler.js';
