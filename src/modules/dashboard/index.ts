// The dashboard module's face: its plugin (serves the web console at /dashboard) and the route
// patterns it serves.
export { CONSOLE_ROUTES } from './dashboard.paths.js';
export { dashboardPlugin } from './dashboard.plugin.js';
