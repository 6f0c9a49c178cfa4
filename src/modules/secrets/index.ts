// The secrets module's face: its plugin, the platform keys the composition root loads, and the
// secret storage the AI key, payments configuration and function runtime build on.
export { secretsPlugin } from './secrets.plugin.js';
export { loadPlatformKeys, RESERVED, type PlatformKeys } from './platform-keys.js';
export {
  insertReservedSecrets,
  notifySecretChange,
  readActiveSecrets,
  SECRETS_CHANNEL,
  updateSecret,
} from './secrets.repo.js';
