// GoTrue's email links over Plinth's link service (auth module): admin generate_link, invitations,
// and the link a user clicks (GET /auth/v1/verify), which sends the browser to the app with the
// session in the URL fragment, as GoTrue's implicit flow does.
import type { z } from 'zod';
import { AppError } from '../../../core/errors.js';
import type { Deps } from '../../../deps.js';
import { type AuthServices, assertRedirectAllowed, type LinkFlow, readAuthConfig } from '../../auth/index.js';
import type { generateLinkBodySchema, inviteBodySchema, verifyLinkQuerySchema } from './auth.schemas.js';
import { GoTrueError, translating, weakPassword } from './gotrue-errors.js';
import { toGoTrueSession, toGoTrueUser } from './gotrue-shapes.js';

type GenerateLink = z.output<typeof generateLinkBodySchema>;
type Invite = z.output<typeof inviteBodySchema>;
type VerifyLink = z.output<typeof verifyLinkQuerySchema>;

const emailChangeUnsupported = () =>
  new GoTrueError(422, 'validation_failed', 'Changing the email address is not supported on this server.');
const linkExpired = () => new GoTrueError(403, 'otp_expired', 'Email link is invalid or has expired');

/** The link flows a verify `type` may name ('email' stands for a signup, magiclink or invite link). */
export function linkFlowOf(type: string): LinkFlow | 'email' {
  switch (type) {
    case 'signup':
    case 'magiclink':
    case 'invite':
    case 'recovery':
    case 'email':
      return type;
    case 'email_change':
    case 'email_change_current':
    case 'email_change_new':
      throw emailChangeUnsupported();
    default:
      throw new GoTrueError(422, 'phone_provider_disabled', 'Phone logins are disabled on this server.');
  }
}

/** `url` with GoTrue's fragment parameters (whatever fragment it had is replaced). */
function withFragment(url: string, params: Record<string, string | number>): string {
  const target = new URL(url);
  target.hash = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
  return target.toString();
}

export type GoTrueLinks = ReturnType<typeof createGoTrueLinks>;

export function createGoTrueLinks(deps: Pick<Deps, 'sql' | 'clock' | 'config'>, auth: AuthServices) {
  const ttl = deps.config.accessTokenTtlSeconds;
  /** GoTrue's action_link: the verify endpoint, with the token, its type and where it leads. */
  const actionLink = (token: string, type: LinkFlow, redirectTo: string | null) => {
    const url = new URL(`${deps.config.apiBaseUrl}/auth/v1/verify`);
    url.searchParams.set('token', token);
    url.searchParams.set('type', type);
    if (redirectTo) url.searchParams.set('redirect_to', redirectTo);
    return url.toString();
  };

  /** A redirect the allowlist accepts (undefined otherwise), for the error redirect of a bad link. */
  async function allowedOrUndefined(redirectTo: string | undefined) {
    if (!redirectTo) return undefined;
    try {
      assertRedirectAllowed(redirectTo, (await readAuthConfig(deps.sql)).allowedRedirectUrls);
      return redirectTo;
    } catch {
      return undefined;
    }
  }

  return {
    /** auth.admin.generateLink: the user plus action_link, email_otp and hashed_token; no email is sent. */
    async generateLink(body: GenerateLink, queryRedirect: string | undefined) {
      if (body.type === 'email_change_current' || body.type === 'email_change_new') throw emailChangeUnsupported();
      const redirectTo = queryRedirect ?? body.redirect_to ?? body.redirectTo;
      const issued = await translating(
        auth.links.issue(body.type, body.email, {
          ...(body.password !== undefined ? { password: body.password } : {}),
          ...(body.data ? { profile: body.data } : {}),
          ...(redirectTo ? { redirectTo } : {}),
        }),
        'VALIDATION_ERROR',
        weakPassword,
      );
      return {
        ...toGoTrueUser(issued.user),
        action_link: actionLink(issued.token, body.type, issued.redirectTo),
        email_otp: issued.code,
        hashed_token: issued.token,
        redirect_to: issued.redirectTo ?? deps.config.apiBaseUrl,
        verification_type: body.type,
      };
    },

    /** auth.admin.inviteUserByEmail: creates the user and emails the invitation link. */
    async invite(body: Invite, redirectTo: string | undefined) {
      const user = await translating(
        auth.links.invite(
          body.email,
          { ...(body.data ? { profile: body.data } : {}), ...(redirectTo ? { redirectTo } : {}) },
          (token, redirect) => actionLink(token, 'invite', redirect),
        ),
        'VALIDATION_ERROR',
        (err) => new GoTrueError(400, 'validation_failed', err.message),
      );
      return toGoTrueUser(user);
    },

    /**
     * The clicked link: spends the token and answers where to send the browser, with the session
     * in the fragment. The link's own redirect (checked when it was issued) wins over the query's;
     * both must still be allowed. A bad link goes back with GoTrue's error fragment when the
     * query names an allowed redirect, else it is a 403 otp_expired.
     */
    async verifyLink(query: VerifyLink, ip: string): Promise<string> {
      const flow = linkFlowOf(query.type);
      const pickRedirect = async (stored: string | null) => {
        const target = stored ?? query.redirect_to;
        if (!target) {
          throw new GoTrueError(400, 'validation_failed', 'This link names no redirect_to to send the browser to.');
        }
        if (!(await allowedOrUndefined(target))) {
          throw new GoTrueError(400, 'validation_failed', `${target} is not in the allowed redirect URLs.`);
        }
        return target;
      };
      try {
        const opened = await auth.links.signInWithLink(flow, query.token, ip, pickRedirect);
        const session = toGoTrueSession(opened, ttl, deps.clock);
        return withFragment(opened.redirectTo!, {
          access_token: session.access_token,
          expires_at: session.expires_at,
          expires_in: session.expires_in,
          refresh_token: session.refresh_token,
          token_type: session.token_type,
          type: opened.flow,
        });
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
        const back = await allowedOrUndefined(query.redirect_to);
        if (!back) throw linkExpired();
        return withFragment(back, {
          error: 'access_denied',
          error_code: 'otp_expired',
          error_description: 'Email link is invalid or has expired',
        });
      }
    },

    /** verifyOtp({ token_hash, type }): the link's token sent as JSON; answers the session. */
    async verifyTokenHash(type: string, tokenHash: string, ip: string) {
      const opened = await translating(
        auth.links.signInWithLink(linkFlowOf(type), tokenHash, ip),
        'VALIDATION_ERROR',
        linkExpired,
      );
      return toGoTrueSession(opened, ttl, deps.clock);
    },
  };
}
