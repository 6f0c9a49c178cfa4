// The metrics module's face: the request instrumentation app.ts installs first, which answers
// the GET /metrics plugin it registers with the other modules.
export { instrumentRequests } from './metrics.plugin.js';
