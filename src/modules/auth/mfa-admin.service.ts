// The project admin's own TOTP factors (stored like users', under the admin's subject), the
// project setting "require MFA for the project admin", and the check the admin sign-in makes:
// with the setting on, the sign-in carries a current code of one of the admin's verified factors.
import { withTx } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import type { KeyedDeps } from '../secrets/index.js';
import { checkTotpCode, factorLocked, MAX_FACTORS_PER_OWNER } from './mfa-checks.js';
import { factorView } from './mfa.service.js';
import { newTotpSecret, totpQrCode, totpUri } from './mfa-totp.js';
import * as repo from './mfa.repo.js';

export type AdminMfaService = ReturnType<typeof createAdminMfaService>;

const adminFactorNotFound = () =>
  new AppError('AUTH_MFA_FACTOR_NOT_FOUND', undefined, {
    nextActions: "List the admin's factors with GET /api/auth/admin/mfa/factors.",
  });

export function createAdminMfaService(deps: KeyedDeps, admin: { subject: string; username: string }) {
  const owner = { adminSubject: admin.subject };
  const issuer = new URL(deps.config.apiBaseUrl).host;

  return {
    list: async () => (await repo.listFactors(deps.sql, owner)).map(factorView),

    async enroll(friendlyName: string | undefined) {
      const existing = await repo.listFactors(deps.sql, owner);
      if (existing.length >= MAX_FACTORS_PER_OWNER) {
        throw new AppError('CONFLICT', `The admin has at most ${MAX_FACTORS_PER_OWNER} factors.`);
      }
      const secret = newTotpSecret();
      const factor = await repo.insertFactor(deps.sql, {
        owner,
        friendlyName: friendlyName ?? `TOTP ${existing.length + 1}`,
        secretSealed: deps.keyring.seal(secret),
        now: deps.clock.now(),
      });
      if (!factor) throw new AppError('AUTH_MFA_FACTOR_NAME_CONFLICT');
      const uri = totpUri(secret, issuer, admin.username);
      return { ...factorView(factor), totp: { secret, uri, qrCode: await totpQrCode(uri) } };
    },

    /** Confirms a factor with a current code (wrong codes count towards its lock). */
    async verify(factorId: string, code: string) {
      const now = deps.clock.now();
      const outcome = await withTx(deps.sql, async (tx) => {
        const factor = await repo.lockFactor(tx, owner, factorId);
        if (!factor) throw adminFactorNotFound();
        const check = await checkTotpCode(tx, deps.keyring, factor, code, now);
        return check.ok ? { ok: true as const, factor: (await repo.lockFactor(tx, owner, factorId))! } : check;
      });
      if (!outcome.ok) throw outcome.error;
      return factorView(outcome.factor);
    },

    /** Removes a factor; the last verified one cannot go while the setting requires MFA. */
    async remove(factorId: string) {
      await withTx(deps.sql, async (tx) => {
        const factors = await repo.listFactors(tx, owner);
        if (!factors.some((f) => f.id === factorId)) throw adminFactorNotFound();
        const verifiedLeft = factors.filter((f) => f.status === 'verified' && f.id !== factorId).length;
        if (verifiedLeft === 0 && (await repo.readRequireAdminMfa(tx))) {
          throw new AppError('CONFLICT', "The admin's last verified factor cannot go while MFA is required.", {
            nextActions: 'Turn requireAdminMfa off first (PUT /api/auth/mfa/settings), or verify another factor.',
          });
        }
        await repo.deleteFactor(tx, owner, factorId);
      });
    },

    settings: async () => ({ requireAdminMfa: await repo.readRequireAdminMfa(deps.sql) }),

    /** Turning the requirement on needs a verified admin factor, so the admin is not locked out. */
    async updateSettings(requireAdminMfa: boolean) {
      if (requireAdminMfa && !(await repo.listFactors(deps.sql, owner)).some((f) => f.status === 'verified')) {
        throw new AppError('CONFLICT', 'The project admin has no verified TOTP factor.', {
          nextActions: 'Enroll and verify one first: POST /api/auth/admin/mfa/factors, then …/{id}/verify.',
        });
      }
      return { requireAdminMfa: await repo.writeRequireAdminMfa(deps.sql, requireAdminMfa, deps.clock.now()) };
    },

    /**
     * The admin sign-in's second step: false when the project does not require MFA; true when
     * `code` is a current, unused code of a verified admin factor; throws otherwise (wrong codes
     * are counted on every factor tried, and committed).
     */
    async checkSignInCode(code: string | undefined): Promise<boolean> {
      if (!(await repo.readRequireAdminMfa(deps.sql))) return false;
      if (code === undefined) {
        throw new AppError('AUTH_MFA_REQUIRED', 'The project requires a TOTP code for the admin sign-in.', {
          nextActions: "Send totpCode: the current code of the admin's authenticator app.",
        });
      }
      const now = deps.clock.now();
      const outcome = await withTx(deps.sql, async (tx) => {
        const verified = (await repo.listFactors(tx, owner)).filter((f) => f.status === 'verified');
        let failure: AppError | undefined;
        for (const { id } of verified) {
          const factor = (await repo.lockFactor(tx, owner, id))!;
          if (factor.lockedUntil && factor.lockedUntil > now) {
            failure ??= factorLocked(factor.lockedUntil, now);
            continue;
          }
          const check = await checkTotpCode(tx, deps.keyring, factor, code, now);
          if (check.ok) return { ok: true as const };
          failure = check.error;
        }
        return {
          ok: false as const,
          error: failure ?? new AppError('AUTH_MFA_REQUIRED', 'The project admin has no verified TOTP factor.'),
        };
      });
      if (!outcome.ok) throw outcome.error;
      return true;
    },
  };
}
