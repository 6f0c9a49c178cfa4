// A user's second factors (GoTrue's /factors shapes, Plinth's names): enroll a TOTP factor,
// challenge and verify it (the session rises to aal2), list, unenroll, and recovery codes.
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import { principalOf } from '../../http/principal.js';
import { clientTypeSchema, sessionResponseSchema } from './auth.schemas.js';
import type { AuthServices } from './auth-services.js';
import {
  challengeResponseSchema,
  enrollBodySchema,
  enrollResponseSchema,
  factorListSchema,
  factorParamsSchema,
  recoveryBodySchema,
  recoveryCodesSchema,
  removedSchema,
  verifiedSessionSchema,
  verifyBodySchema,
} from './mfa.schemas.js';
import type { MfaCaller } from './mfa.service.js';
import { deliverTokens, USER_REFRESH_COOKIE } from './session-reply.js';

const tags = ['auth'];
const userToken = { access: 'token' as const };
const security = [{ bearerAuth: [] }];

/** The signed-in user behind the request; admin tokens have their own factors (/api/auth/admin/mfa). */
function callerOf(request: FastifyRequest): MfaCaller {
  const principal = principalOf(request);
  if (principal.kind !== 'user') {
    throw new AppError('INSUFFICIENT_PERMISSIONS', 'These routes are for signed-in users.', {
      nextActions: 'The project admin manages its own factors under /api/auth/admin/mfa/factors.',
    });
  }
  return {
    userId: principal.userId,
    email: principal.email,
    sessionId: principal.sessionId,
    aal: principal.aal ?? 'aal1',
  };
}

export function mfaRoutes(deps: Deps, auth: AuthServices): FastifyPluginAsyncZod {
  return async (scope) => {
    const app = scope.withTypeProvider<ZodTypeProvider>();

    app.get('/api/auth/mfa/factors', {
      config: userToken,
      schema: {
        tags,
        summary: "The user's factors, the session's assurance level and the recovery codes left",
        security,
        response: { 200: factorListSchema },
      },
      handler: async (request) => {
        const caller = callerOf(request);
        const [data, recoveryCodesRemaining] = await Promise.all([
          auth.mfa.list(caller.userId),
          auth.mfaRecovery.remaining(caller.userId),
        ]);
        const nextLevel = data.some((f) => f.status === 'verified') ? ('aal2' as const) : ('aal1' as const);
        return { data, currentLevel: caller.aal, nextLevel, recoveryCodesRemaining };
      },
    });

    app.post('/api/auth/mfa/factors', {
      config: userToken,
      schema: {
        tags,
        summary: 'Enroll a TOTP factor: its secret, otpauth:// URI and QR code (SVG), shown once',
        security,
        body: enrollBodySchema,
        response: { 200: enrollResponseSchema },
      },
      handler: (request) => auth.mfa.enroll(callerOf(request), request.body.friendlyName),
    });

    app.post('/api/auth/mfa/factors/:factorId/challenge', {
      config: userToken,
      schema: {
        tags,
        summary: 'Start a challenge of a factor (answer it with /verify within five minutes)',
        security,
        params: factorParamsSchema,
        response: { 200: challengeResponseSchema },
      },
      handler: (request) => auth.mfa.challenge(callerOf(request), request.params.factorId),
    });

    app.post('/api/auth/mfa/factors/:factorId/verify', {
      config: userToken,
      schema: {
        tags,
        summary: 'Answer a challenge with a TOTP code: new tokens at aal2 (first factor: recovery codes too)',
        security,
        params: factorParamsSchema,
        querystring: clientTypeSchema,
        body: verifyBodySchema,
        response: { 200: verifiedSessionSchema },
      },
      handler: async (request, reply) => {
        const result = await auth.mfa.verify(callerOf(request), request.params.factorId, request.body);
        const delivered = deliverTokens(
          reply,
          deps.config,
          USER_REFRESH_COOKIE,
          request.query.client_type,
          result.tokens,
        );
        return {
          user: result.user,
          ...delivered,
          ...(result.recoveryCodes ? { recoveryCodes: result.recoveryCodes } : {}),
        };
      },
    });

    app.delete('/api/auth/mfa/factors/:factorId', {
      config: userToken,
      schema: {
        tags,
        summary: 'Unenroll a factor (needs aal2 while the user has a verified factor)',
        security,
        params: factorParamsSchema,
        response: { 200: removedSchema },
      },
      handler: async (request) => {
        await auth.mfa.unenroll(callerOf(request), request.params.factorId);
        return { success: true, message: 'Factor removed' };
      },
    });

    app.post('/api/auth/mfa/recovery', {
      config: userToken,
      schema: {
        tags,
        summary: 'Use a recovery code instead of a TOTP code: new tokens at aal2 (each code works once)',
        security,
        querystring: clientTypeSchema,
        body: recoveryBodySchema,
        response: { 200: sessionResponseSchema },
      },
      handler: async (request, reply) => {
        const { tokens, user } = await auth.mfaRecovery.verify(callerOf(request), request.body.code);
        return { user, ...deliverTokens(reply, deps.config, USER_REFRESH_COOKIE, request.query.client_type, tokens) };
      },
    });

    app.post('/api/auth/mfa/recovery-codes', {
      config: userToken,
      schema: {
        tags,
        summary: 'Replace the recovery codes with ten new ones, shown once (needs aal2)',
        security,
        response: { 200: recoveryCodesSchema },
      },
      handler: async (request) => ({ recoveryCodes: await auth.mfaRecovery.regenerate(callerOf(request)) }),
    });
  };
}
