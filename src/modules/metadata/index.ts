// The metadata module's face: its plugin.
export { metadataPlugin } from './metadata.plugin.js';
