// The generated-types module's face: its plugin.
export { typesPlugin } from './types.plugin.js';
