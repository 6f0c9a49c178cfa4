// The idempotency module's face: Idempotency-Key handling for records inserts and function calls.
export {
  createIdempotency,
  idempotencyKeyOf,
  keyedRequest,
  KEY_LIFETIME_MS,
  type Idempotency,
  type KeyedRequest,
  type StoredOutcome,
} from './idempotency.service.js';
