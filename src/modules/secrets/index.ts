// The secrets module's face: its plugin, the platform keys, and the service functions other
// modules keep their reserved secrets with and hear secret changes through.
export { secretsPlugin } from './secrets.plugin.js';
export { isPlatformKey, type KeyedDeps, loadPlatformKeys, type PlatformKeys, RESERVED } from './platform-keys.js';
export {
  deactivateSecret,
  followSecretChanges,
  readFunctionEnvironment,
  readSealedSecret,
  readSealedSecrets,
  seedReservedSecret,
  writeReservedSecret,
} from './reserved-secrets.service.js';
