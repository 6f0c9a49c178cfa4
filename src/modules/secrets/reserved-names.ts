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

/** Retired keys (API, anon, signing) that still open something until their grace period ends. */
const RETIRED_KEY_PREFIXES = [`${RESERVED.apiKey}_OLD_`, `${RESERVED.anonKey}_OLD_`, RETIRED_PUBLIC_KEY_PREFIX];
const PLATFORM_KEY_NAMES: ReadonlySet<string> = new Set(Object.values(RESERVED));

/**
 * Names the platform gives retired keys; nobody else may create them (a planted
 * JWT_PUBLIC_KEY_OLD_… would make the servers trust a signing key of the creator's choosing).
 */
export function isRetiredKeyName(key: string): boolean {
  return RETIRED_KEY_PREFIXES.some((prefix) => key.startsWith(prefix));
}

/**
 * The platform's own keys, current and retired: whoever holds one has power over the platform.
 * Only rotation (or a first start) writes them; a restore keeps the current ones, never an archive's.
 */
export function isPlatformKey(key: string): boolean {
  return PLATFORM_KEY_NAMES.has(key) || isRetiredKeyName(key);
}

/**
 * Platform secrets whose value is power over the platform (signing keys, the admin password,
 * retired API keys still in their grace period): no route ever answers their value. The current
 * API and anon keys are shown by /api/metadata to admins, so they gain nothing here.
 */
export function isWriteOnlySecret(key: string): boolean {
  return key === RESERVED.jwtPrivateKey || key === RESERVED.adminPassword || key.startsWith(`${RESERVED.apiKey}_OLD_`);
}
