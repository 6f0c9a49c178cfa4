// The dashboard module's face: its plugin (serves the web console at /dashboard).
export { dashboardPlugin } from './dashboard.plugin.js';
