// Whose writes a read must see: the caller's. A user is keyed by user (every session and tab of
// theirs sees their writes), an admin by admin, and anonymous callers share one key (their writes
// are rare; sharing only makes their reads more careful).
import type { Principal } from '../../core/principal.js';

export function consistencyKeyOf(principal: Principal | null): string {
  if (!principal || principal.kind === 'anon') return 'anon';
  if (principal.kind === 'user') return `user:${principal.userId}`;
  return 'admin';
}
