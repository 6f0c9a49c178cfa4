// The secrets module's face: its plugin, and the platform keys the composition root loads.
export { loadPlatformKeys, type PlatformKeys } from './platform-keys.js';
export { secretsPlugin } from './secrets.plugin.js';
