// GoTrue's MFA factor use cases (/auth/v1/factors) as calls to Plinth's MFA service: enroll a TOTP
// factor, challenge, verify (a session at aal2) and unenroll, each failure in GoTrue's error codes.
import { AppError } from '../../../core/errors.js';
import type { Deps } from '../../../deps.js';
import type { AuthServices } from '../../auth/index.js';
import { GoTrueError } from './gotrue-errors.js';
import { type GoTrueFactor, toGoTrueFactor, toGoTrueSession } from './gotrue-shapes.js';

/** The signed-in user calling, as the MFA service needs it. */
export interface FactorCaller {
  userId: string;
  email: string;
  sessionId: string;
  aal: 'aal1' | 'aal2';
}

/** Plinth's MFA errors in GoTrue's codes (the ones BY_CODE does not already translate). */
const MFA_CODES: Partial<Record<string, [number, string]>> = {
  AUTH_MFA_FACTOR_NOT_FOUND: [404, 'mfa_factor_not_found'],
  AUTH_MFA_VERIFICATION_FAILED: [422, 'mfa_verification_failed'],
  AUTH_MFA_CHALLENGE_EXPIRED: [422, 'mfa_challenge_expired'],
  AUTH_MFA_FACTOR_NAME_CONFLICT: [422, 'mfa_factor_name_conflict'],
  AUTH_MFA_FACTOR_LOCKED: [429, 'over_request_rate_limit'],
  AUTH_INSUFFICIENT_AAL: [403, 'insufficient_aal'],
  // Enroll: the per-user factor limit; verify: no such challenge for this factor and session.
  CONFLICT: [422, 'too_many_enrolled_mfa_factors'],
  NOT_FOUND: [404, 'mfa_factor_not_found'],
};

async function inGoTrueCodes<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    const mapped = err instanceof AppError ? MFA_CODES[err.code] : undefined;
    if (!mapped) throw err;
    const { headers } = err as AppError;
    throw new GoTrueError(mapped[0], mapped[1], (err as AppError).message, headers ? { headers } : {});
  }
}

/** auth-js adds the data: URL prefix itself, so the QR code leaves as bare SVG (GoTrue's wire). */
const bareSvg = (qrCode: string) => qrCode.replace(/^data:image\/svg\+xml;utf-8,/, '');

export type GoTrueMfa = ReturnType<typeof createGoTrueMfa>;

export function createGoTrueMfa(deps: Pick<Deps, 'clock' | 'config'>, auth: AuthServices) {
  return {
    /** The user's factors in GoTrue's shape (GET /user and session answers carry them). */
    async factorsOf(userId: string): Promise<GoTrueFactor[]> {
      return (await auth.mfa.list(userId)).map(toGoTrueFactor);
    },

    async enroll(caller: FactorCaller, body: { factor_type: string; friendly_name?: string }) {
      if (body.factor_type !== 'totp') {
        const code = body.factor_type === 'phone' ? 'mfa_phone_enroll_not_enabled' : 'mfa_webauthn_enroll_not_enabled';
        throw new GoTrueError(422, code, `Only TOTP factors are served here (factor_type "${body.factor_type}").`);
      }
      const factor = await inGoTrueCodes(auth.mfa.enroll(caller, body.friendly_name || undefined));
      return {
        id: factor.id,
        type: 'totp' as const,
        friendly_name: factor.friendlyName,
        totp: { qr_code: bareSvg(factor.totp.qrCode), secret: factor.totp.secret, uri: factor.totp.uri },
      };
    },

    async challenge(caller: FactorCaller, factorId: string) {
      const challenge = await inGoTrueCodes(auth.mfa.challenge(caller, factorId));
      const expiresAt = Math.floor(new Date(challenge.expiresAt).getTime() / 1000);
      return { id: challenge.id, type: 'totp' as const, expires_at: expiresAt };
    },

    /**
     * A session at aal2 (GoTrue's answer), the user with its factors. The first verified factor
     * of a user also brings Plinth's recovery codes, shown this once (`recovery_codes`).
     */
    async verify(caller: FactorCaller, factorId: string, body: { challenge_id: string; code: string }) {
      const result = await inGoTrueCodes(
        auth.mfa.verify(caller, factorId, { challengeId: body.challenge_id, code: body.code }),
      );
      const session = toGoTrueSession(
        { user: result.user, tokens: result.tokens },
        deps.config.accessTokenTtlSeconds,
        deps.clock,
        await this.factorsOf(caller.userId),
      );
      return result.recoveryCodes ? { ...session, recovery_codes: result.recoveryCodes } : session;
    },

    async unenroll(caller: FactorCaller, factorId: string) {
      await inGoTrueCodes(auth.mfa.unenroll(caller, factorId));
      return { id: factorId };
    },
  };
}
