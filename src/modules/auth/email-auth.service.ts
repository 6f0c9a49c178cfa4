// The email flows: sign-in codes, email verification and password reset, by code or by link.
// No flow says whether an address is registered; codes and counters live in PostgreSQL.
import type { Queryable } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import { createRateLimiter } from '../../core/rate-limiter.js';
import type { Deps } from '../../deps.js';
import type { Mailer, TemplateType } from '../email/index.js';
import type { AuthConfig } from './auth.schemas.js';
import { readAuthConfig } from './config.repo.js';
import type { SecretPurpose } from './email-secrets.repo.js';
import { createEmailSecrets, LINK_TOKEN } from './email-secrets.js';
import { claimUnverifiedAccount } from './accounts.service.js';
import { createEmailSignIn, invalidCode } from './email-sign-in.js';
import { assertPasswordMeetsPolicy } from './password-policy.js';
import { authLimits } from './rate-limits.js';
import { assertRedirectAllowed, withParams } from './redirects.js';
import { revokeUserSessions } from './sessions.repo.js';
import type { SessionService } from './sessions.service.js';
import * as users from './users.repo.js';

const MINUTE = 60;
const TTL = {
  signInCode: 5 * MINUTE,
  verificationCode: 15 * MINUTE,
  resetCode: 15 * MINUTE,
  link: 24 * 60 * MINUTE,
  exchangedResetToken: 60 * MINUTE,
};

export type EmailAuthService = ReturnType<typeof createEmailAuthService>;

/** Where failures that the caller must not see (they would reveal an account) are reported. */
export type QuietFailureLog = (err: unknown, what: string) => void;

export function createEmailAuthService(
  deps: Pick<Deps, 'sql' | 'clock' | 'config' | 'hmacKeys' | 'hasher'>,
  sessions: SessionService,
  mailer: Mailer,
  logQuietFailure: QuietFailureLog,
) {
  const secrets = createEmailSecrets(deps);
  const limiter = createRateLimiter(deps.sql, deps.clock);
  const { checked, claimAccount, openSessionFor } = createEmailSignIn(deps, sessions, limiter);
  const linkTo = (path: string, token: string) => `${deps.config.apiBaseUrl}${path}?token=${token}`;

  // Quiet sends still running after their answer (awaited by drain() before the pool closes).
  const pending = new Set<Promise<void>>();

  /**
   * Counts a send against the IP (first: a refused host spends only its own budget), the
   * purpose's cooldown and the address; counted for unknown addresses too, so a 429 says nothing
   * about registration. The cooldown is kept only if the email went out.
   */
  async function countSend(ip: string, purpose: SecretPurpose, email: string) {
    await limiter.hit(authLimits.emailSendPerIp, ip);
    await limiter.hit(authLimits.emailCooldown, `${purpose}:${email}`);
    await limiter.hit(authLimits.emailSendPerAddress, email);
  }

  async function rateLimitedSend(ip: string, purpose: SecretPurpose, email: string, send: () => Promise<void>) {
    await countSend(ip, purpose, email);
    try {
      await send();
    } catch (err) {
      await limiter.release(authLimits.emailCooldown, `${purpose}:${email}`);
      throw err;
    }
  }

  /**
   * A send that must not tell whether the address is registered: after the same counting for
   * every address, the caller is answered at once and the lookup and the email happen after
   * the answer, so neither their time nor a delivery failure (logged) shows in the response.
   */
  async function quietSend(ip: string, purpose: SecretPurpose, email: string, send: () => Promise<void>) {
    await countSend(ip, purpose, email);
    const work = new Promise<void>((resolve) => setImmediate(resolve))
      .then(send)
      .catch(async (err) => {
        logQuietFailure(err, `${purpose} email`);
        await limiter.release(authLimits.emailCooldown, `${purpose}:${email}`);
      })
      .catch((err) => logQuietFailure(err, `${purpose} cooldown release`))
      .finally(() => pending.delete(work));
    pending.add(work);
  }

  async function sendCode(email: string, purpose: SecretPurpose, type: TemplateType, ttlSeconds: number) {
    const code = await secrets.issueCode(deps.sql, email, purpose, ttlSeconds);
    await mailer.send({ type, to: email, values: { email, code, expiresInMinutes: ttlSeconds / MINUTE } });
  }

  async function sendLink(email: string, purpose: SecretPurpose, type: TemplateType, path: string, redirectTo: string) {
    const { token } = await secrets.issueToken(deps.sql, email, purpose, TTL.link, redirectTo);
    await mailer.send({
      type,
      to: email,
      values: { email, link: linkTo(path, token), expiresInMinutes: TTL.link / MINUTE },
    });
  }

  /** The redirect a link flow needs: required for the link method and allowlisted. */
  function linkRedirect(config: AuthConfig, method: 'code' | 'link', redirectTo: string | undefined) {
    if (method !== 'link') return undefined;
    if (!redirectTo) {
      throw new AppError('VALIDATION_ERROR', 'redirectTo: is required when the link method is configured', {
        details: [{ field: 'redirectTo', rule: 'required', message: 'is required for link emails' }],
      });
    }
    assertRedirectAllowed(redirectTo, config.allowedRedirectUrls);
    return redirectTo;
  }

  function sendVerificationEmail(email: string, config: AuthConfig, redirectTo: string | undefined) {
    return config.verifyEmailMethod === 'link'
      ? sendLink(email, 'VERIFY_EMAIL', 'email-verification-link', '/api/auth/email/verify-link', redirectTo!)
      : sendCode(email, 'VERIFY_EMAIL', 'email-verification-code', TTL.verificationCode);
  }

  return {
    /** Waits for the quiet sends still running (before the database pool closes). */
    async drain(): Promise<void> {
      await Promise.allSettled([...pending]);
    },

    /** Checked before a sign-up writes anything: the redirect its verification link will need. */
    checkVerificationRedirect(config: AuthConfig, redirectTo: string | undefined): void {
      if (config.requireEmailVerification) linkRedirect(config, config.verifyEmailMethod, redirectTo);
    },

    /** Sends the verification email of a new account; the account stays if delivery fails. */
    async sendSignUpVerification(email: string, config: AuthConfig, redirectTo: string | undefined) {
      try {
        await sendVerificationEmail(email, config, redirectTo);
      } catch (err) {
        throw new AppError('AUTH_VERIFICATION_EMAIL_DELIVERY_FAILED', undefined, {
          cause: err,
          nextActions: 'Retry delivery with POST /api/auth/email/send-verification instead of registering again.',
        });
      }
    },

    async sendSignInCode(email: string, ip: string): Promise<void> {
      await rateLimitedSend(ip, 'SIGN_IN', email, () => sendCode(email, 'SIGN_IN', 'request-otp', TTL.signInCode));
    },

    /**
     * Signs in with an emailed code. An unknown address becomes a verified passwordless user
     * (unless signups are disabled: the code is spent and 403 returned); an unverified account
     * becomes verified and passwordless.
     */
    async signInWithCode(email: string, code: string, name: string | undefined, ip: string) {
      const outcome = await checked(
        { ip, email },
        () =>
          deps.sql.begin(async (tx) => {
            const consumed = await secrets.consumeCode(tx, email, 'SIGN_IN', code);
            if (consumed.outcome !== 'ok') return undefined;
            const existing = await users.findAccountByEmail(tx, email);
            if (existing) return { userId: await claimAccount(tx, existing, email) };
            if ((await readAuthConfig(tx)).disableSignup) return { userId: null };
            const created = await users.insertPasswordlessUser(tx, email, name ? { name } : {});
            if (created) return { userId: created };
            // A registration of the same address committed in between: that account it is.
            const raced = await users.findAccountByEmail(tx, email);
            return raced ? { userId: await claimAccount(tx, raced, email) } : undefined;
          }),
        invalidCode,
      );
      if (outcome.userId === null) {
        throw new AppError('AUTH_SIGNUP_DISABLED', undefined, {
          nextActions: 'Ask the project admin to create the account.',
        });
      }
      // The inbox's owner proved it: a lock a stranger's wrong passwords put on the account ends.
      await limiter.release(authLimits.failedSignInsPerAccount, email);
      return openSessionFor(outcome.userId);
    },

    async sendVerification(email: string, redirectTo: string | undefined, ip: string): Promise<'code' | 'link'> {
      const config = await readAuthConfig(deps.sql);
      const redirect = linkRedirect(config, config.verifyEmailMethod, redirectTo);
      await quietSend(ip, 'VERIFY_EMAIL', email, async () => {
        const account = await users.findAccountByEmail(deps.sql, email);
        if (account && !account.emailVerified) await sendVerificationEmail(email, config, redirect);
      });
      return config.verifyEmailMethod;
    },

    /** Verifies the email with its code and signs the user in. */
    async verifyWithCode(email: string, code: string, ip: string) {
      const userId = await checked(
        { ip, email },
        () =>
          deps.sql.begin(async (tx) => {
            const consumed = await secrets.consumeCode(tx, email, 'VERIFY_EMAIL', code);
            if (consumed.outcome !== 'ok') return undefined;
            return users.markEmailVerified(tx, email, deps.clock.now());
          }),
        invalidCode,
      );
      return openSessionFor(userId);
    },

    /** Where the verification link sends the browser (with svc_status); 400 without a usable redirect. */
    async verifyLink(token: string): Promise<string> {
      // The redirect is checked inside the transaction: a link answered with 400 (its redirect no
      // longer allowed) rolls back, so it stays unspent and the email unverified.
      const { ok, redirectTo } = await deps.sql.begin(async (tx) => {
        const consumed = LINK_TOKEN.test(token) ? await secrets.consumeToken(tx, 'VERIFY_EMAIL', token) : undefined;
        const redirect = await usableRedirect(tx, consumed?.redirectTo ?? null, 'verification');
        if (consumed?.outcome === 'ok') await users.markEmailVerified(tx, consumed.email!, deps.clock.now());
        return { ok: consumed?.outcome === 'ok', redirectTo: redirect };
      });
      const params: Record<string, string> = { svc_status: ok ? 'success' : 'error', svc_type: 'verify_email' };
      if (!ok) params.svc_error = 'The verification link is invalid, expired or already used.';
      return withParams(redirectTo, params);
    },

    async sendResetPassword(email: string, redirectTo: string | undefined, ip: string): Promise<'code' | 'link'> {
      const config = await readAuthConfig(deps.sql);
      const redirect = linkRedirect(config, config.resetPasswordMethod, redirectTo);
      await quietSend(ip, 'RESET_PASSWORD', email, async () => {
        if (!(await users.findAccountByEmail(deps.sql, email))) return;
        await (config.resetPasswordMethod === 'link'
          ? sendLink(email, 'RESET_PASSWORD', 'reset-password-link', '/api/auth/email/reset-password-link', redirect!)
          : sendCode(email, 'RESET_PASSWORD', 'reset-password-code', TTL.resetCode));
      });
      return config.resetPasswordMethod;
    },

    /** Where the reset link sends the browser: `ready` with the token only if it is still usable. */
    async resetPasswordLink(token: string): Promise<string> {
      const row = LINK_TOKEN.test(token) ? await secrets.peekToken(deps.sql, 'RESET_PASSWORD', token) : undefined;
      const redirectTo = await usableRedirect(deps.sql, row?.redirectTo ?? null, 'reset');
      if (row?.usable) return withParams(redirectTo, { token, svc_status: 'ready', svc_type: 'reset_password' });
      return withParams(redirectTo, {
        svc_status: 'error',
        svc_type: 'reset_password',
        svc_error: 'The reset link is invalid, expired or already used.',
      });
    },

    /**
     * Signs in with a password-reset code (Supabase's verify type=recovery): the inbox's owner
     * gets a session and then sets the new password as a signed-in user.
     */
    async signInWithResetCode(email: string, code: string, ip: string) {
      const userId = await checked(
        { ip, email },
        () =>
          deps.sql.begin(async (tx) => {
            const consumed = await secrets.consumeCode(tx, email, 'RESET_PASSWORD', code);
            if (consumed.outcome !== 'ok') return undefined;
            const account = await users.findAccountByEmail(tx, email);
            return account ? claimAccount(tx, account, email) : undefined;
          }),
        invalidCode,
      );
      await limiter.release(authLimits.failedSignInsPerAccount, email);
      return openSessionFor(userId);
    },

    /** Trades a reset code for a reset token (the code flow's extra step). */
    async exchangeResetCode(email: string, code: string, ip: string) {
      return checked(
        { ip, email },
        () =>
          deps.sql.begin(async (tx) => {
            const consumed = await secrets.consumeCode(tx, email, 'RESET_PASSWORD', code);
            if (consumed.outcome !== 'ok') return undefined;
            return secrets.issueToken(tx, email, 'RESET_TOKEN', TTL.exchangedResetToken, null);
          }),
        invalidCode,
      );
    },

    /** Sets a new password with a reset token (from a link or a code exchange); ends every session. */
    async resetPassword(newPassword: string, token: string, ip: string): Promise<void> {
      // The password is checked first, so a weak choice does not spend the token.
      assertPasswordMeetsPolicy(newPassword, await readAuthConfig(deps.sql));
      const passwordHash = await deps.hasher.hash(newPassword);
      const email = await checked(
        { ip },
        () =>
          deps.sql.begin(async (tx) => {
            if (!LINK_TOKEN.test(token)) return undefined;
            let consumed = await secrets.consumeToken(tx, 'RESET_PASSWORD', token);
            if (consumed.outcome !== 'ok') consumed = await secrets.consumeToken(tx, 'RESET_TOKEN', token);
            if (consumed.outcome !== 'ok') return undefined;
            const account = await users.findAccountByEmail(tx, consumed.email!);
            if (!account) return undefined;
            const now = deps.clock.now();
            if (!account.emailVerified)
              await claimUnverifiedAccount(tx, { id: account.id, email: consumed.email! }, now, 'password_reset');
            await users.setPasswordHash(tx, consumed.email!, passwordHash, now);
            await revokeUserSessions(tx, account.id, now, 'password_reset');
            return consumed.email!;
          }),
        () =>
          new AppError('VALIDATION_ERROR', 'Invalid or expired reset token.', {
            nextActions: 'Request a new password reset.',
          }),
      );
      // The owner chose a new password from the inbox: a stranger's lock on the old one ends.
      await limiter.release(authLimits.failedSignInsPerAccount, email);
    },
  };

  /** The stored redirect of a link, if it is still allowed; otherwise a 400 the browser shows. */
  async function usableRedirect(
    db: Queryable,
    redirectTo: string | null,
    flow: 'verification' | 'reset',
  ): Promise<string> {
    if (!redirectTo) {
      throw new AppError('VALIDATION_ERROR', `This ${flow} link is invalid or has expired.`, {
        nextActions: `Request a new ${flow} email.`,
      });
    }
    assertRedirectAllowed(redirectTo, (await readAuthConfig(db)).allowedRedirectUrls);
    return redirectTo;
  }
}
