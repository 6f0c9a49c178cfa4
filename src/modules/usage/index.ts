// The usage module's face: its plugin (MCP tool-call usage, recorded and read back).
export { usagePlugin } from './usage.plugin.js';
