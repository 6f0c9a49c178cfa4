// The names of the platform's own secrets, and which of them no route may ever show.
export const RESERVED = {
  apiKey: 'API_KEY',
  anonKey: 'ANON_KEY',
  jwtPrivateKey: 'JWT_PRIVATE_KEY',
  jwtKeyId: 'JWT_KEY_ID',
  adminPassword: 'ADMIN_PASSWORD',
} as const;

/** Retired signing keys: only their public half, kept until their grace period ends. */
export const RETIRED_PUBLIC_KEY_PREFIX = 'JWT_PUBLIC_KEY_OLD_';

/**
 * Platform secrets whose value is power over the platform (signing keys, the admin password,
 * retired API keys still in their grace period): no route ever answers their value. The current
 * API and anon keys are shown by /api/metadata to admins, so they gain nothing here.
 */
export function isWriteOnlySecret(key: string): boolean {
  return key === RESERVED.jwtPrivateKey || key === RESERVED.adminPassword || key.startsWith(`${RESERVED.apiKey}_OLD_`);
}
