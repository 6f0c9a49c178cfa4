// The caller's database scope: which role a request runs as in PostgreSQL, the claims that
// row-level security reads (auth.uid() and friends) and how long one statement may run. Records,
// RPC, storage and payments share it.
import type { RequestScope } from '../core/db.js';
import type { Principal } from './principal.js';

/** Statement timeouts by database role, in milliseconds (0: none): `config.statementTimeouts`. */
export interface StatementTimeouts {
  anon: number;
  authenticated: number;
  projectAdmin: number;
}

/** Who the caller runs as inside PostgreSQL, and for how long one statement may run. */
export function scopeOf(principal: Principal, timeouts: StatementTimeouts): RequestScope {
  if (principal.kind === 'anon') return { role: 'anon', claims: { role: 'anon' }, statementTimeoutMs: timeouts.anon };
  if (principal.kind === 'user') {
    return {
      role: 'authenticated',
      claims: { sub: principal.userId, email: principal.email, role: 'authenticated', sid: principal.sessionId },
      statementTimeoutMs: timeouts.authenticated,
    };
  }
  return {
    role: 'project_admin',
    claims: { sub: principal.subject, role: 'project_admin' },
    statementTimeoutMs: timeouts.projectAdmin,
  };
}
