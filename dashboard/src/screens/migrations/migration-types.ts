// The shapes of the migrations API answers, and the version a new migration is offered.

export interface AppliedMigration {
  version: string;
  name: string;
  statements: string[];
  createdAt: string;
}

/** Now as YYYYMMDDHHmmss (UTC), or one past the latest applied version when that is later. */
export function nextVersion(latest: string | undefined, now = new Date()): string {
  const stamp = now.toISOString().replace(/\D/g, '').slice(0, 14);
  if (latest === undefined || BigInt(stamp) > BigInt(latest)) return stamp;
  return String(BigInt(latest) + 1n);
}
