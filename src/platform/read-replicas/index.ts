// Read replicas: the read router (where a read runs), the consistency key of a caller, and LSNs.
export {
  createReadRouter,
  primaryOnly,
  replicaName,
  type Freshness,
  type ReadRouter,
  type RouterStats,
} from './read-router.js';
export { consistencyKeyOf } from './consistency-key.js';
export { formatLsn, parseLsn } from './lsn.js';
