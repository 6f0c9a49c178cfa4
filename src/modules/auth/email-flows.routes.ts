// The email endpoints: sending codes and links, verifying an email, resetting a password.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import {
  clientTypeSchema,
  emailOnlyBodySchema,
  emailWithRedirectBodySchema,
  exchangeResetCodeBodySchema,
  exchangeResetCodeResponseSchema,
  linkTokenQuerySchema,
  messageSchema,
  resetPasswordBodySchema,
  sessionResponseSchema,
  successSchema,
  verifyEmailBodySchema,
} from './auth.schemas.js';
import type { AuthServices } from './auth-services.js';
import { deliverTokens, USER_REFRESH_COOKIE } from './session-reply.js';

const tags = ['auth'];
const publicAccess = { access: 'public' as const };
const accepted = { 202: successSchema };
const what = (method: 'code' | 'link') => (method === 'link' ? 'link' : 'code');

export function emailFlowRoutes(deps: Deps, auth: AuthServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/auth/email/send-otp', {
      config: publicAccess,
      schema: {
        tags,
        summary: 'Email a 6-digit sign-in code (never says whether the address is registered)',
        body: emailOnlyBodySchema,
        response: accepted,
      },
      handler: async (request, reply) => {
        await auth.email.sendSignInCode(request.body.email, request.ip);
        return reply.code(202).send({
          success: true,
          message: 'If sign-in is available for this email, we have sent a verification code.',
        });
      },
    });

    app.post('/api/auth/email/send-verification', {
      config: publicAccess,
      schema: {
        tags,
        summary: 'Email a verification code or link',
        body: emailWithRedirectBodySchema,
        response: accepted,
      },
      handler: async (request, reply) => {
        const method = await auth.email.sendVerification(request.body.email, request.body.redirectTo, request.ip);
        return reply.code(202).send({
          success: true,
          message: `If your email is registered and not yet verified, we have sent you a verification ${what(method)}. Please check your inbox.`,
        });
      },
    });

    app.post('/api/auth/email/verify', {
      config: publicAccess,
      schema: {
        tags,
        summary: 'Verify the email with its 6-digit code; signs the user in',
        querystring: clientTypeSchema,
        body: verifyEmailBodySchema,
        response: { 200: sessionResponseSchema },
      },
      handler: async (request, reply) => {
        const { user, tokens } = await auth.email.verifyWithCode(request.body.email, request.body.otp, request.ip);
        return { user, ...deliverTokens(reply, deps.config, USER_REFRESH_COOKIE, request.query.client_type, tokens) };
      },
    });

    app.get('/api/auth/email/verify-link', {
      config: publicAccess,
      schema: {
        tags,
        summary: 'The emailed verification link: redirects the browser to redirectTo with svc_status',
        querystring: linkTokenQuerySchema,
      },
      handler: async (request, reply) => reply.redirect(await auth.email.verifyLink(request.query.token), 302),
    });

    app.post('/api/auth/email/send-reset-password', {
      config: publicAccess,
      schema: {
        tags,
        summary: 'Email a password reset code or link',
        body: emailWithRedirectBodySchema,
        response: accepted,
      },
      handler: async (request, reply) => {
        const method = await auth.email.sendResetPassword(request.body.email, request.body.redirectTo, request.ip);
        return reply.code(202).send({
          success: true,
          message: `If your email is registered, we have sent you a password reset ${what(method)}. Please check your inbox.`,
        });
      },
    });

    app.get('/api/auth/email/reset-password-link', {
      config: publicAccess,
      schema: {
        tags,
        summary: 'The emailed reset link: redirects with svc_status=ready and the token while it is usable',
        querystring: linkTokenQuerySchema,
      },
      handler: async (request, reply) => reply.redirect(await auth.email.resetPasswordLink(request.query.token), 302),
    });

    app.post('/api/auth/email/exchange-reset-password-token', {
      config: publicAccess,
      schema: {
        tags,
        summary: 'Trade a reset code for a reset token',
        body: exchangeResetCodeBodySchema,
        response: { 200: exchangeResetCodeResponseSchema },
      },
      handler: async (request) => {
        const { token, expiresAt } = await auth.email.exchangeResetCode(
          request.body.email,
          request.body.code,
          request.ip,
        );
        return { token, expiresAt: expiresAt.toISOString() };
      },
    });

    app.post('/api/auth/email/reset-password', {
      config: publicAccess,
      schema: {
        tags,
        summary: 'Set a new password with a reset token; ends every session of the user',
        body: resetPasswordBodySchema,
        response: { 200: messageSchema },
      },
      handler: async (request) => {
        await auth.email.resetPassword(request.body.newPassword, request.body.otp, request.ip);
        return { message: 'Password reset successfully. Please login with your new password.' };
      },
    });
  };
}
