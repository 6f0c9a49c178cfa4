// The AI module's face: its plugin.
export { aiRoutes as aiPlugin } from './ai.routes.js';
