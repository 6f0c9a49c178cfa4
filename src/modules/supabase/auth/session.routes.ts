// /auth/v1 routes of a user's own session: sign-up, the token grants, the signed-in user (read and
// update), logout by scope, and the emailed codes (otp, verify, recover). Thin: GoTrueAuth does the work.
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../../http/principal.js';
import {
  logoutQuerySchema,
  otpBodySchema,
  recoverBodySchema,
  redirectQuerySchema,
  signUpBodySchema,
  tokenBodySchema,
  tokenQuerySchema,
  updateUserBodySchema,
  verifyBodySchema,
} from './auth.schemas.js';
import type { GoTrueAuth } from './gotrue-auth.service.js';
import type { GoTrueLinks } from './gotrue-links.service.js';
import { GoTrueError } from './gotrue-errors.js';
import type { PkceExchange } from './oauth.routes.js';

const tags = ['supabase-auth'];
// Supabase's gateway wants the project key on these; auth-js always sends it as the bearer.
const withKey = { access: 'client' as const };
const userOnly = { access: 'token' as const };
const security = [{ bearerAuth: [] }];

/** The signed-in user of a user-token route (an admin token is not a user). */
function userOf(request: FastifyRequest) {
  const principal = principalOf(request);
  if (principal.kind !== 'user') throw new GoTrueError(403, 'bad_jwt', 'This endpoint needs a user access token.');
  return principal;
}

export function sessionRoutes(gotrue: GoTrueAuth, pkce: PkceExchange, links: GoTrueLinks): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/signup', {
      config: withKey,
      schema: {
        tags,
        security,
        summary: 'GoTrue sign-up: a session, or the user when email confirmation is required',
        querystring: redirectQuerySchema,
        body: signUpBodySchema,
      },
      handler: (request) => gotrue.signUp(request.body, request.query.redirect_to, request.ip),
    });

    app.post('/token', {
      config: withKey,
      schema: {
        tags,
        security,
        summary: 'GoTrue token grants: password, refresh_token, pkce',
        querystring: tokenQuerySchema,
        body: tokenBodySchema,
      },
      handler: (request) => {
        const { body } = request;
        switch (request.query.grant_type) {
          case 'password':
            return gotrue.passwordGrant(body, request.ip);
          case 'refresh_token':
            return gotrue.refreshGrant(body);
          case 'pkce':
            return pkce(body.auth_code, body.code_verifier);
          default:
            throw new GoTrueError(400, 'validation_failed', `grant_type=${request.query.grant_type} is not supported.`);
        }
      },
    });

    app.get('/user', {
      config: userOnly,
      schema: { tags, summary: 'The signed-in user (GoTrue shape)', security },
      handler: (request) => {
        const user = userOf(request);
        return gotrue.currentUser(user.userId, user.sessionId);
      },
    });

    app.put('/user', {
      config: userOnly,
      schema: {
        tags,
        summary: 'Update user_metadata (data) or the password; an anonymous user adds an email and password',
        security,
        querystring: redirectQuerySchema,
        body: updateUserBodySchema,
      },
      handler: (request) => {
        const user = userOf(request);
        return gotrue.updateUser(user.userId, user.sessionId, request.body, request.query.redirect_to);
      },
    });

    app.post('/logout', {
      config: userOnly,
      schema: {
        tags,
        summary: 'End this session (local), the others, or all (global)',
        security,
        querystring: logoutQuerySchema,
      },
      handler: async (request, reply) => {
        const user = userOf(request);
        await gotrue.logout(user.userId, user.sessionId, request.query.scope);
        return reply.code(204).send();
      },
    });

    app.post('/otp', {
      config: withKey,
      schema: {
        tags,
        security,
        summary: 'Email a sign-in code (signInWithOtp)',
        querystring: redirectQuerySchema,
        body: otpBodySchema,
      },
      handler: (request) => {
        const { email, phone, create_user } = request.body;
        if (!email)
          throw new GoTrueError(
            422,
            phone ? 'phone_provider_disabled' : 'validation_failed',
            phone ? 'Phone logins are disabled on this server.' : 'An email address is required.',
          );
        return gotrue.sendOtp(email, create_user, request.ip);
      },
    });

    app.post('/verify', {
      config: withKey,
      schema: {
        tags,
        security,
        summary:
          'Verify an emailed code, or a link’s token_hash: a session (email, magiclink, invite, signup, recovery)',
        body: verifyBodySchema,
      },
      handler: (request) => {
        const { token_hash, type } = request.body;
        if (token_hash !== undefined) return links.verifyTokenHash(type, token_hash, request.ip);
        return gotrue.verify(request.body, request.ip);
      },
    });

    app.post('/recover', {
      config: withKey,
      schema: {
        tags,
        security,
        summary: 'Email a password-reset code (answers {} for unknown addresses too)',
        querystring: redirectQuerySchema,
        body: recoverBodySchema,
      },
      handler: (request) => gotrue.recover(request.body.email, request.query.redirect_to, request.ip),
    });
  };
}
