// Where the email links send a browser back to: checked against allowedRedirectUrls, and
// decorated with the svc_* result parameters the client reads.
import { AppError } from '../../core/errors.js';
import { isRedirectAllowed } from './redirect-allowlist.js';

/** Throws the spec's 400 (naming the URL, with a hint for the admin) for a URL not allowed. */
export function assertRedirectAllowed(redirectTo: string, allowlist: readonly string[]): void {
  if (isRedirectAllowed(redirectTo, allowlist)) return;
  throw new AppError('VALIDATION_ERROR', `${redirectTo} is not in the allowed redirect URLs.`, {
    details: [{ field: 'redirectTo', rule: 'allowedRedirectUrls', message: 'is not allowed' }],
    nextActions: 'Add this URL to allowedRedirectUrls in the authentication configuration (PUT /api/auth/config).',
  });
}

/** redirectTo with the given query parameters added (existing ones kept). */
export function withParams(redirectTo: string, params: Record<string, string>): string {
  const url = new URL(redirectTo);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.toString();
}
