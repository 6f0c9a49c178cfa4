// Passkey routes: a signed-in user registers, lists, renames and removes passkeys; anyone signs in
// with a discoverable passkey (options, then the browser's assertion); an aal1 session proves a
// passkey of its user and rises to aal2.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import { principalOf } from '../../http/principal.js';
import { clientTypeSchema, sessionResponseSchema, successSchema } from './auth.schemas.js';
import type { PasskeySignInService } from './passkey-sign-in.service.js';
import {
  ceremonyOptionsSchema,
  passkeyListSchema,
  passkeyParamsSchema,
  passkeySchema,
  registerPasskeyBodySchema,
  registrationOptionsBodySchema,
  renamePasskeyBodySchema,
  verifyPasskeyBodySchema,
} from './passkeys.schemas.js';
import type { PasskeyService } from './passkeys.service.js';
import { deliverTokens, USER_REFRESH_COOKIE } from './session-reply.js';

const tags = ['auth'];
const userOnly = { access: 'token' as const };
const publicAccess = { access: 'public' as const };
const security = [{ bearerAuth: [] }];

/** The signed-in user (the project admin has no passkeys of its own). */
function signedInUser(request: FastifyRequest) {
  const principal = principalOf(request);
  if (principal.kind !== 'user') throw new AppError('INSUFFICIENT_PERMISSIONS', 'Only users have passkeys.');
  return { ...principal, aal: principal.aal ?? ('aal1' as const) };
}

export function passkeyRoutes(
  deps: Deps,
  passkeys: PasskeyService,
  signIn: PasskeySignInService,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/auth/passkeys/registration-options', {
      config: userOnly,
      schema: {
        tags,
        summary: 'Options for navigator.credentials.create() to register a passkey (the challenge is single use)',
        security,
        body: registrationOptionsBodySchema,
        response: { 200: ceremonyOptionsSchema },
      },
      handler: (request) => {
        return passkeys.registrationOptions(signedInUser(request), request.body?.name);
      },
    });

    app.post('/api/auth/passkeys', {
      config: userOnly,
      schema: {
        tags,
        summary: "Register a passkey: the browser's answer to the registration options",
        security,
        body: registerPasskeyBodySchema,
        response: { 200: passkeySchema },
      },
      handler: (request) => passkeys.register(signedInUser(request).userId, request.body),
    });

    app.get('/api/auth/passkeys', {
      config: userOnly,
      schema: {
        tags,
        summary: "The signed-in user's passkeys, oldest first",
        security,
        response: { 200: passkeyListSchema },
      },
      handler: (request) => passkeys.list(signedInUser(request).userId),
    });

    app.patch('/api/auth/passkeys/:id', {
      config: userOnly,
      schema: {
        tags,
        summary: 'Rename a passkey',
        security,
        params: passkeyParamsSchema,
        body: renamePasskeyBodySchema,
        response: { 200: passkeySchema },
      },
      handler: (request) => passkeys.rename(signedInUser(request).userId, request.params.id, request.body.name),
    });

    app.delete('/api/auth/passkeys/:id', {
      config: userOnly,
      schema: {
        tags,
        summary: 'Remove a passkey (it can no longer sign in); needs aal2, as a passkey is a second factor',
        security,
        params: passkeyParamsSchema,
        response: { 200: successSchema },
      },
      handler: (request) => passkeys.remove(signedInUser(request), request.params.id),
    });

    app.post('/api/auth/passkeys/sign-in-options', {
      config: publicAccess,
      schema: {
        tags,
        summary: 'Options for navigator.credentials.get() to sign in with a discoverable passkey (no email)',
        response: { 200: ceremonyOptionsSchema },
      },
      handler: (request) => signIn.signInOptions(request.ip),
    });

    app.post('/api/auth/passkeys/sign-in', {
      config: publicAccess,
      schema: {
        tags,
        summary: "Sign in with a passkey: the browser's answer to the sign-in options",
        querystring: clientTypeSchema,
        body: verifyPasskeyBodySchema,
        response: { 200: sessionResponseSchema },
      },
      handler: async (request, reply) => {
        const { user, tokens } = await signIn.signIn(request.body);
        return { user, ...deliverTokens(reply, deps.config, USER_REFRESH_COOKIE, request.query.client_type, tokens) };
      },
    });

    app.post('/api/auth/passkeys/assurance-options', {
      config: userOnly,
      schema: {
        tags,
        summary: "Options for navigator.credentials.get() to prove one of the user's passkeys (second factor)",
        security,
        response: { 200: ceremonyOptionsSchema },
      },
      handler: (request) => signIn.assuranceOptions(signedInUser(request)),
    });

    app.post('/api/auth/passkeys/assurance', {
      config: userOnly,
      schema: {
        tags,
        summary: 'Verify a passkey as a second factor: new tokens at aal2 (amr "webauthn")',
        security,
        querystring: clientTypeSchema,
        body: verifyPasskeyBodySchema,
        response: { 200: sessionResponseSchema },
      },
      handler: async (request, reply) => {
        const { user, tokens } = await signIn.verifyAssurance(signedInUser(request), request.body);
        return { user, ...deliverTokens(reply, deps.config, USER_REFRESH_COOKIE, request.query.client_type, tokens) };
      },
    });
  };
}
