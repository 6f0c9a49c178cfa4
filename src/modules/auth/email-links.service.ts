// Sign-in links an admin hands out (Supabase's generate_link) or an invitation emails: for one
// address and flow, a link token and a 6-digit code, either of which opens a session once. The
// codes are the email flows' own (checked where those flows check them); the link tokens here.
import { AppError } from '../../core/errors.js';
import { createRateLimiter } from '../../core/rate-limiter.js';
import type { Deps } from '../../deps.js';
import type { Mailer } from '../email/index.js';
import type { User } from './auth.schemas.js';
import { readAuthConfig } from './config.repo.js';
import type { SecretPurpose } from './email-secrets.repo.js';
import { createEmailSecrets, LINK_TOKEN } from './email-secrets.js';
import { createEmailSignIn } from './email-sign-in.js';
import { assertPasswordMeetsPolicy } from './password-policy.js';
import { authLimits } from './rate-limits.js';
import { assertRedirectAllowed } from './redirects.js';
import type { SessionService } from './sessions.service.js';
import type { IssuedTokens } from './tokens.js';
import * as users from './users.repo.js';

/** What a link does: confirm a sign-up, sign in, accept an invitation, or recover the account. */
export type LinkFlow = 'signup' | 'magiclink' | 'invite' | 'recovery';

const LINK_PURPOSE: Record<LinkFlow, SecretPurpose> = {
  signup: 'SIGN_UP_LINK',
  magiclink: 'SIGN_IN_LINK',
  invite: 'INVITE_LINK',
  recovery: 'RECOVERY_LINK',
};
/** The email flow whose code stands beside the link (POST /verify with {email, token, type}). */
const CODE_PURPOSE: Record<LinkFlow, SecretPurpose> = {
  signup: 'VERIFY_EMAIL',
  magiclink: 'SIGN_IN',
  invite: 'SIGN_IN',
  recovery: 'RESET_PASSWORD',
};
const LINK_TTL_SECONDS = 24 * 60 * 60;
// An admin's email may wait in an inbox: an hour, as GoTrue's default OTP expiry.
const CODE_TTL_SECONDS = 60 * 60;

export interface IssuedLink {
  user: User;
  /** 64 hex characters: the link's token (GoTrue's hashed_token). */
  token: string;
  /** 6 digits (GoTrue's email_otp). */
  code: string;
  redirectTo: string | null;
}

export interface LinkSignIn {
  user: User;
  tokens: IssuedTokens;
  flow: LinkFlow;
  /** Where the link was issued to send the browser (checked by `pickRedirect` when given). */
  redirectTo: string | null;
}

const invalidLink = () =>
  new AppError('VALIDATION_ERROR', 'The link is invalid, expired or already used.', {
    nextActions: 'Ask for a new link.',
  });

const emailTaken = () =>
  new AppError('AUTH_EMAIL_EXISTS', 'A user with this email address has already been registered', {
    nextActions: 'Send the user a magic link or a recovery link instead.',
  });

export type EmailLinkService = ReturnType<typeof createEmailLinkService>;

export function createEmailLinkService(
  deps: Pick<Deps, 'sql' | 'clock' | 'hmacKeys' | 'hasher'>,
  sessions: SessionService,
  mailer: Mailer,
) {
  const secrets = createEmailSecrets(deps);
  const limiter = createRateLimiter(deps.sql, deps.clock);
  const signIn = createEmailSignIn(deps, sessions, limiter);

  return {
    /**
     * A link and a code for `email`, sent nowhere (the admin delivers them). signup, invite and
     * magiclink create the user, unverified, when the address is new; signup and invite refuse a
     * verified address; recovery needs an existing user. All or nothing: one transaction.
     */
    async issue(
      flow: LinkFlow,
      email: string,
      options: { password?: string; profile?: Record<string, unknown>; redirectTo?: string } = {},
    ): Promise<IssuedLink> {
      const config = await readAuthConfig(deps.sql);
      if (options.redirectTo !== undefined) assertRedirectAllowed(options.redirectTo, config.allowedRedirectUrls);
      let passwordHash: string | null = null;
      if (flow === 'signup') {
        if (!options.password) {
          throw new AppError('VALIDATION_ERROR', 'A sign-up link needs the new user’s password.', {
            details: [{ field: 'password', rule: 'required', message: 'is required for type signup' }],
          });
        }
        assertPasswordMeetsPolicy(options.password, config);
        passwordHash = await deps.hasher.hash(options.password);
      }
      const issued = await deps.sql.begin(async (tx) => {
        const existing = await users.findAccountByEmail(tx, email);
        let userId = existing?.id;
        if (flow === 'recovery' && !existing) throw new AppError('AUTH_USER_NOT_FOUND', 'User not found');
        if ((flow === 'signup' || flow === 'invite') && existing?.emailVerified) throw emailTaken();
        if (!userId) {
          const created = await users.insertUser(tx, {
            email,
            passwordHash,
            emailVerified: false,
            profile: options.profile ?? {},
          });
          if (!created) throw emailTaken();
          userId = created.id;
        }
        const redirectTo = options.redirectTo ?? null;
        const { token } = await secrets.issueToken(tx, email, LINK_PURPOSE[flow], LINK_TTL_SECONDS, redirectTo);
        const code = await secrets.issueCode(tx, email, CODE_PURPOSE[flow], CODE_TTL_SECONDS);
        return { userId, token, code, redirectTo };
      });
      const user = await users.findUserById(deps.sql, issued.userId);
      if (!user) throw new AppError('AUTH_USER_NOT_FOUND', 'User not found');
      return { user, token: issued.token, code: issued.code, redirectTo: issued.redirectTo };
    },

    /**
     * Invites `email` (a new or still unverified user) and emails the link `linkOf` builds from
     * the token. The user exists once this answers, even if the email then fails to go out.
     */
    async invite(
      email: string,
      options: { profile?: Record<string, unknown>; redirectTo?: string },
      linkOf: (token: string, redirectTo: string | null) => string,
    ): Promise<User> {
      const issued = await this.issue('invite', email, options);
      await mailer.send({
        type: 'email-verification-link',
        to: email,
        values: { email, link: linkOf(issued.token, issued.redirectTo), expiresInMinutes: LINK_TTL_SECONDS / 60 },
      });
      return issued.user;
    },

    /**
     * Spends a link token of `flow` ('email': a signup, magiclink or invite link) and opens a
     * session: the email counts as verified, and an unverified account is the inbox owner's from
     * now on. `pickRedirect` runs before the token is spent; if it throws, the link stays usable.
     * Wrong tokens count against the caller's IP, as wrong codes do.
     */
    async signInWithLink(
      flow: LinkFlow | 'email',
      token: string,
      ip: string,
      pickRedirect?: (stored: string | null) => Promise<string>,
    ): Promise<LinkSignIn> {
      const flows: LinkFlow[] = flow === 'email' ? ['signup', 'magiclink', 'invite'] : [flow];
      const opened = await signIn.checked(
        { ip },
        () =>
          deps.sql.begin(async (tx) => {
            if (!LINK_TOKEN.test(token)) return undefined;
            for (const candidate of flows) {
              const consumed = await secrets.consumeToken(tx, LINK_PURPOSE[candidate], token);
              if (consumed.outcome !== 'ok' || !consumed.email) continue;
              const redirectTo = pickRedirect ? await pickRedirect(consumed.redirectTo) : consumed.redirectTo;
              const account = await users.findAccountByEmail(tx, consumed.email);
              if (!account) return undefined;
              if (candidate === 'signup') await users.markEmailVerified(tx, consumed.email, deps.clock.now());
              else await signIn.claimAccount(tx, account, consumed.email);
              return { userId: account.id, email: consumed.email, flow: candidate, redirectTo };
            }
            return undefined;
          }),
        invalidLink,
      );
      // The inbox's owner proved it: a lock a stranger's wrong passwords put on the account ends.
      await limiter.release(authLimits.failedSignInsPerAccount, opened.email);
      const session = await signIn.openSessionFor(opened.userId);
      return { ...session, flow: opened.flow, redirectTo: opened.redirectTo };
    },
  };
}
