// The secrets module's face: its plugin, the platform keys, and the service functions other
// modules keep their reserved secrets with and hear secret changes through.
export { secretsPlugin } from './secrets.plugin.js';
export { type KeyedDeps, loadPlatformKeys, type PlatformKeys } from './platform-keys.js';
export {
  deactivateSecret,
  followSecretChanges,
  readFunctionEnvironment,
  readSealedSecret,
  writeReservedSecret,
} from './reserved-secrets.service.js';
// Still called by ai/ai-key.ts, which its own session is rebuilding (it may not be touched here):
// remove once that module keeps its key through writeReservedSecret/readSealedSecret.
export { insertReservedSecrets, notifySecretChange, readActiveSecrets, updateSecret } from './secrets.repo.js';
