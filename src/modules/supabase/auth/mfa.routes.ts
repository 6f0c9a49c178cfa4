// /auth/v1/factors: a signed-in user's TOTP factors as auth-js's auth.mfa.* calls them (enroll,
// challenge, verify, unenroll). Thin: GoTrueMfa does the work over Plinth's MFA service.
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../../http/principal.js';
import {
  challengeFactorBodySchema,
  enrollFactorBodySchema,
  factorParamsSchema,
  verifyFactorBodySchema,
} from './auth.schemas.js';
import { GoTrueError } from './gotrue-errors.js';
import type { FactorCaller, GoTrueMfa } from './gotrue-mfa.service.js';

const tags = ['supabase-auth'];
const userOnly = { access: 'token' as const };
const security = [{ bearerAuth: [] }];

/** The signed-in user (an admin token has its own factors under /api/auth/admin/mfa). */
function callerOf(request: FastifyRequest): FactorCaller {
  const principal = principalOf(request);
  if (principal.kind !== 'user') throw new GoTrueError(403, 'bad_jwt', 'This endpoint needs a user access token.');
  return {
    userId: principal.userId,
    email: principal.email,
    sessionId: principal.sessionId,
    aal: principal.aal ?? 'aal1',
  };
}

export function mfaRoutes(mfa: GoTrueMfa): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/factors', {
      config: userOnly,
      schema: {
        tags,
        security,
        summary: 'Enroll a TOTP factor: its secret, otpauth:// URI and QR code (SVG)',
        body: enrollFactorBodySchema,
      },
      handler: (request) => mfa.enroll(callerOf(request), request.body),
    });

    app.post('/factors/:factorId/challenge', {
      config: userOnly,
      schema: {
        tags,
        security,
        summary: 'Challenge a factor (answer with /verify within five minutes)',
        params: factorParamsSchema,
        body: challengeFactorBodySchema,
      },
      handler: (request) => mfa.challenge(callerOf(request), request.params.factorId),
    });

    app.post('/factors/:factorId/verify', {
      config: userOnly,
      schema: {
        tags,
        security,
        summary: 'Answer a challenge with a TOTP code: a session at aal2',
        params: factorParamsSchema,
        body: verifyFactorBodySchema,
      },
      handler: (request) => mfa.verify(callerOf(request), request.params.factorId, request.body),
    });

    app.delete('/factors/:factorId', {
      config: userOnly,
      schema: {
        tags,
        security,
        summary: 'Unenroll a factor (at aal2 when the user has a verified factor)',
        params: factorParamsSchema,
      },
      handler: (request) => mfa.unenroll(callerOf(request), request.params.factorId),
    });
  };
}
