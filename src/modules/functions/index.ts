// The functions module's face: its plugin, the function list the metadata overview shows, and
// whether a slug is active (schedules call the runtime for active functions).
export { functionsPlugin } from './functions.plugin.js';
export { functionSummaries, isActiveFunction } from './functions.service.js';
