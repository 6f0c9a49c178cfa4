// The GoTrue use cases of /auth/v1 as calls to Plinth's auth services (no second implementation):
// sign-up, the token grants, the signed-in user, logout scopes and the email flows, each failure
// translated into GoTrue's error code.
import type { z } from 'zod';
import { AppError } from '../../../core/errors.js';
import type { Deps } from '../../../deps.js';
import { type AuthServices, emailSchema, findAccountByEmail, type User } from '../../auth/index.js';
import type { signUpBodySchema, tokenBodySchema, updateUserBodySchema, verifyBodySchema } from './auth.schemas.js';
import { GoTrueError, translating, weakPassword } from './gotrue-errors.js';
import type { GoTrueMfa } from './gotrue-mfa.service.js';
import { toGoTrueSession, toGoTrueUser } from './gotrue-shapes.js';

type SignUp = z.output<typeof signUpBodySchema>;
type TokenBody = z.output<typeof tokenBodySchema>;
type UpdateUser = z.output<typeof updateUserBodySchema>;
type Verify = z.output<typeof verifyBodySchema>;

const phoneDisabled = () =>
  new GoTrueError(422, 'phone_provider_disabled', 'Phone logins are disabled on this server.');
const emailRateLimit = (err: AppError) =>
  new GoTrueError(429, 'over_email_send_rate_limit', err.message, err.headers ? { headers: err.headers } : {});
const badCode = () => new GoTrueError(403, 'otp_expired', 'Token has expired or is invalid');

export type GoTrueAuth = ReturnType<typeof createGoTrueAuth>;

export function createGoTrueAuth(
  deps: Pick<Deps, 'sql' | 'clock' | 'config'>,
  auth: AuthServices,
  mfa: Pick<GoTrueMfa, 'factorsOf'>,
) {
  const ttl = deps.config.accessTokenTtlSeconds;
  // The user's factors ride along: auth-js reads session.user.factors for the next assurance level.
  const session = async (s: { user: User; tokens: { accessToken: string; refreshToken: string } }) =>
    toGoTrueSession(s, ttl, deps.clock, await mfa.factorsOf(s.user.id));

  /**
   * An anonymous user's email and password (PUT /user {email, password}): the anonymous service's
   * conversion, same user id and data. Other users cannot change their email here.
   */
  async function convertAnonymous(userId: string, sessionId: string, body: UpdateUser, redirectTo?: string) {
    const email = emailSchema.safeParse(body.email);
    if (!email.success)
      throw new GoTrueError(400, 'validation_failed', 'Unable to validate email address: invalid format');
    if (body.password === undefined) {
      throw new GoTrueError(
        422,
        'validation_failed',
        'Set the email and the password together (an anonymous user converts with both).',
      );
    }
    const converting = auth.anonymous.addEmailPassword(userId, sessionId, {
      email: email.data,
      password: body.password,
      ...(redirectTo ? { redirectTo } : {}),
    });
    await translating(
      translating(
        converting,
        'CONFLICT',
        () => new GoTrueError(422, 'validation_failed', 'Changing the email address is not supported.'),
      ),
      'VALIDATION_ERROR',
      weakPassword,
    );
  }

  return {
    /** A session, or the bare user when the project requires a verified email first. */
    async signUp(body: SignUp, redirectTo: string | undefined, ip: string) {
      if (!body.email) {
        if (body.phone) throw phoneDisabled();
        return this.signInAnonymously(body.data, ip);
      }
      if (!body.password) throw new GoTrueError(422, 'validation_failed', 'Signup requires a valid password');
      const registration = { email: body.email, password: body.password, profile: body.data ?? {}, redirectTo };
      const result = await translating(
        translating(
          auth.users.register(registration, false, ip),
          'AUTH_EMAIL_EXISTS',
          () => new GoTrueError(422, 'user_already_exists', 'User already registered'),
        ),
        'VALIDATION_ERROR',
        weakPassword,
      );
      return result.tokens ? session({ user: result.user, tokens: result.tokens }) : toGoTrueUser(result.user);
    },

    /** signInAnonymously: a new anonymous user; `data` becomes its user_metadata (in the token too). */
    async signInAnonymously(data: Record<string, unknown> | undefined, ip: string) {
      const signedIn = await translating(
        auth.anonymous.signIn(ip),
        'FORBIDDEN',
        () => new GoTrueError(422, 'anonymous_provider_disabled', 'Anonymous sign-ins are disabled'),
      );
      if (!data || Object.keys(data).length === 0) return session(signedIn);
      // The data lands in the profile; a refresh then issues tokens that carry it (amr kept).
      await auth.users.updateProfile(signedIn.user.id, data);
      const refreshed = await auth.sessions.refresh(signedIn.tokens.refreshToken, 'user');
      return session({ user: refreshed.user ?? signedIn.user, tokens: refreshed.tokens });
    },

    async passwordGrant(body: TokenBody, ip: string) {
      if (!body.email)
        throw body.phone ? phoneDisabled() : new GoTrueError(400, 'validation_failed', 'An email address is required');
      try {
        return session(await auth.users.signInWithPassword(body.email, body.password ?? '', ip));
      } catch (err) {
        if (err instanceof AppError && err.code === 'UNAUTHORIZED') {
          throw new GoTrueError(400, 'invalid_credentials', 'Invalid login credentials');
        }
        if (err instanceof AppError && err.code === 'FORBIDDEN') {
          throw new GoTrueError(400, 'email_not_confirmed', 'Email not confirmed');
        }
        throw err;
      }
    },

    async refreshGrant(body: TokenBody) {
      if (!body.refresh_token) throw new GoTrueError(400, 'validation_failed', 'refresh_token is required');
      const refreshed = await translating(
        auth.sessions.refresh(body.refresh_token, 'user'),
        'UNAUTHORIZED',
        () => new GoTrueError(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found'),
      );
      if (!refreshed.user)
        throw new GoTrueError(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found');
      return session({ user: refreshed.user, tokens: refreshed.tokens });
    },

    async currentUser(userId: string, sessionId: string) {
      const user = await translating(
        auth.users.currentUser(userId, sessionId),
        'UNAUTHORIZED',
        () => new GoTrueError(403, 'session_not_found', 'Session from session_id claim in JWT does not exist'),
      );
      return toGoTrueUser(user, await mfa.factorsOf(userId));
    },

    /** Metadata merges into the profile; a new password ends the user's other sessions. */
    async updateUser(userId: string, sessionId: string, body: UpdateUser, redirectTo?: string) {
      if (body.phone !== undefined) throw phoneDisabled();
      if (body.email !== undefined) {
        await convertAnonymous(userId, sessionId, body, redirectTo);
      } else if (body.password !== undefined) {
        // The password first: a weak one changes nothing.
        await translating(
          auth.users.changePassword(userId, sessionId, body.password),
          'VALIDATION_ERROR',
          weakPassword,
        );
      }
      if (body.data) await auth.users.updateProfile(userId, body.data);
      return this.currentUser(userId, sessionId);
    },

    /** local: this session; others: every other one; global: all of the user's sessions. */
    async logout(userId: string, sessionId: string, scope: 'global' | 'local' | 'others') {
      if (scope === 'local') await auth.sessions.revoke({ sessionIds: [sessionId] }, 'logout');
      else await auth.sessions.revokeOthersOfUser(userId, scope === 'others' ? sessionId : null, 'logout');
    },

    /** Sends a sign-in code; create_user false refuses an unknown address as GoTrue does. */
    async sendOtp(email: string, createUser: boolean, ip: string) {
      if (!createUser && !(await findAccountByEmail(deps.sql, email))) {
        throw new GoTrueError(422, 'otp_disabled', 'Signups not allowed for otp');
      }
      await translating(auth.email.sendSignInCode(email, ip), 'TOO_MANY_REQUESTS', emailRateLimit);
      return {};
    },

    /** Verifies an emailed code: a session for sign-in (email, magiclink, invite), sign-up and recovery. */
    async verify(body: Verify, ip: string) {
      if (body.phone || body.type === 'sms' || body.type === 'phone_change') throw phoneDisabled();
      if (!body.email || !body.token) {
        throw new GoTrueError(400, 'validation_failed', 'Verify with the email address and the code it received.');
      }
      const { email, token } = body;
      const verifying = (() => {
        switch (body.type) {
          case 'signup':
            return auth.email.verifyWithCode(email, token, ip);
          case 'recovery':
            return auth.email.signInWithResetCode(email, token, ip);
          case 'email_change':
            throw new GoTrueError(422, 'validation_failed', 'Changing the email address is not supported.');
          default:
            return auth.email.signInWithCode(email, token, undefined, ip);
        }
      })();
      return session(await translating(verifying, 'VALIDATION_ERROR', badCode));
    },

    async recover(email: string, redirectTo: string | undefined, ip: string) {
      await translating(auth.email.sendResetPassword(email, redirectTo, ip), 'TOO_MANY_REQUESTS', emailRateLimit);
      return {};
    },
  };
}
