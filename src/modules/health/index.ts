// The health module's face: liveness and readiness routes, and the platform version.
export { healthRoutes as healthPlugin, VERSION } from './health.routes.js';
