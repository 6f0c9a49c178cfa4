// The functions module's face: its plugin, and the function list the metadata overview shows.
export { functionsPlugin } from './functions.plugin.js';
export { functionSummaries } from './functions.service.js';
