// The agent docs module's face: its plugin (Plinth's own Markdown docs per topic, for agents).
export { docsPlugin } from './docs.plugin.js';
