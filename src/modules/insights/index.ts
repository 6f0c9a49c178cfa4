// The insights module's face: the rollup loop and the routes' plugin, which app.ts registers.
export { insightsPlugin, startInsights } from './insights.plugin.js';
