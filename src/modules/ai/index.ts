// The AI module's face: its plugin and the provider key functions.
export { aiPlugin } from './ai.plugin.js';
export { maskKey, readProviderKey, seedProviderKey, storeProviderKey } from './ai-key.js';
