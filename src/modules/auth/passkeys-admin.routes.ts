// The admin's view of passkeys: the relying party in force, a user's passkeys, and removing one
// (an admin write, so the request log's audit record keeps it; the id param is `id`, not
// `passkeyId`, which the audit's secret redaction would hide as a "pass…" field).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { successSchema, userIdParamsSchema } from './auth.schemas.js';
import { passkeyListSchema, relyingPartySchema, userPasskeyParamsSchema } from './passkeys.schemas.js';
import type { PasskeyService } from './passkeys.service.js';

const tags = ['auth'];
const adminOnly = { access: 'admin' as const };
const security = [{ bearerAuth: [] }];

export function passkeyAdminRoutes(passkeys: PasskeyService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/auth/passkeys/relying-party', {
      config: adminOnly,
      schema: {
        tags,
        summary: 'The WebAuthn relying party (WEBAUTHN_RP_ID, WEBAUTHN_RP_NAME, WEBAUTHN_ORIGINS)',
        security,
        response: { 200: relyingPartySchema },
      },
      handler: () => passkeys.relyingParty(),
    });

    app.get('/api/auth/users/:userId/passkeys', {
      config: adminOnly,
      schema: {
        tags,
        summary: "A user's passkeys",
        security,
        params: userIdParamsSchema,
        response: { 200: passkeyListSchema },
      },
      handler: (request) => passkeys.listOfUser(request.params.userId),
    });

    app.delete('/api/auth/users/:userId/passkeys/:id', {
      config: adminOnly,
      schema: {
        tags,
        summary: "Remove a user's passkey (audited)",
        security,
        params: userPasskeyParamsSchema,
        response: { 200: successSchema },
      },
      handler: (request) => passkeys.removeOfUser(request.params.userId, request.params.id),
    });
  };
}
