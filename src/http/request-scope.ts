// The caller's database scope: which role a request runs as in PostgreSQL and the claims that
// row-level security reads (auth.uid() and friends). Records, RPC, storage and payments share it.
import type { RequestScope } from '../core/db.js';
import type { Principal } from './principal.js';

export function scopeOf(principal: Principal): RequestScope {
  if (principal.kind === 'anon') return { role: 'anon', claims: { role: 'anon' } };
  if (principal.kind === 'user') {
    return { role: 'authenticated', claims: { sub: principal.userId, email: principal.email, role: 'authenticated', sid: principal.sessionId } };
  }
  return { role: 'project_admin', claims: { sub: principal.subject, role: 'project_admin' } };
}
