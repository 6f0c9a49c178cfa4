// The health module's face: its plugin (liveness and readiness routes) and the platform version.
export { healthPlugin } from './health.plugin.js';
export { VERSION } from './health.service.js';
