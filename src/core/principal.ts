// Who the caller is (Principal), framework-free, and the database scope it runs under: which role
// in PostgreSQL, the claims row-level security reads (auth.uid() and friends) and how long one
// statement may run. http/principal.ts resolves a request's credential into one of these.
import type { RequestScope } from './db.js';

export type Principal =
  | { kind: 'anon' }
  | { kind: 'user'; userId: string; email: string; sessionId: string; aal?: 'aal1' | 'aal2' }
  | { kind: 'admin'; subject: string; via: 'token'; sessionId: string }
  | { kind: 'admin'; subject: 'api-key'; via: 'apiKey' };

/** A principal, or the promise of one when an admin token's session must first be looked up. */
export type MaybePrincipal = Principal | Promise<Principal>;

export const isAdmin = (p: Principal | null): boolean => p?.kind === 'admin';

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
      claims: {
        sub: principal.userId,
        email: principal.email,
        role: 'authenticated',
        sid: principal.sessionId,
        aal: principal.aal ?? 'aal1',
      },
      statementTimeoutMs: timeouts.authenticated,
    };
  }
  return {
    role: 'project_admin',
    claims: { sub: principal.subject, role: 'project_admin' },
    statementTimeoutMs: timeouts.projectAdmin,
  };
}
