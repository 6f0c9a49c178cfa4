// The single-use svc_code a sign-in that went through the browser (OAuth, SAML) hands back to the
// app, bound to the app's PKCE challenge; POST /api/auth/oauth/exchange trades it for a session.
import { randomToken, sha256 } from '../../core/ids.js';
import type { Queryable } from '../../core/db.js';
import { withParams } from '../auth/index.js';
import { insertExchangeCode, insertLinkCode } from './oauth.repo.js';

const CODE_TTL_MS = 5 * 60 * 1000;

interface CodeGrant {
  userId: string;
  codeChallenge: string;
  redirectUri: string;
  wire?: 'supabase';
  /** A link flow's code: the provider account to link to `userId` when the code is spent. */
  link?: { provider: string; accountId: string; data: Record<string, unknown> };
}

/** Stores a new svc_code for the user (or for a link) and answers the app's redirect carrying it. */
export async function issueCodeRedirect(db: Queryable, now: Date, grant: CodeGrant): Promise<string> {
  const code = randomToken();
  const row = {
    codeHash: sha256(code),
    userId: grant.userId,
    codeChallenge: grant.codeChallenge,
    expiresAt: new Date(now.getTime() + CODE_TTL_MS),
    now,
  };
  if (grant.link) await insertLinkCode(db, { ...row, ...grant.link });
  else await insertExchangeCode(db, row);
  // Supabase's clients read `code` (exchangeCodeForSession).
  if (grant.wire === 'supabase') return withParams(grant.redirectUri, { code });
  // insforge_code: the name the official client hard-codes for its automatic exchange on page
  // load (api-contract Part A item 14), sent beside the spec's svc_code.
  return withParams(grant.redirectUri, { svc_code: code, insforge_code: code });
}
