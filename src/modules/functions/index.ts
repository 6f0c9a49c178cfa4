// The functions module's face: its plugin, the runtime host the composition root starts, and the
// function list the metadata overview shows.
export { functionsPlugin } from './functions.plugin.js';
export { createFunctionsHost, type FunctionsHost } from './functions-host.js';
export { functionSummaries } from './functions.service.js';
