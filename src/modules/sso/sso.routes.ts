// Public SAML sign-in routes: the start (GoTrue's POST /sso with skip_http_redirect: the IdP URL
// as JSON), Plinth's service-provider metadata and the assertion consumer service (HTTP-POST).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { SamlSignInService } from './saml-sign-in.service.js';
import { acsBodySchema, ssoStartSchema, ssoUrlSchema } from './sso.schemas.js';

const tags = ['sso'];
const publicAccess = { access: 'public' as const };

export function ssoRoutes(signIn: SamlSignInService, metadataXml: () => string): FastifyPluginAsyncZod {
  return async (app) => {
    // The IdP's HTTP-POST binding posts an urlencoded form (this scope only).
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 1024 * 1024 },
      (_r, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(body as string)));
      },
    );

    app.post('/api/auth/sso', {
      config: publicAccess,
      schema: {
        tags,
        summary: "Start SAML sign-in for an email domain (or provider id): the identity provider's URL",
        body: ssoStartSchema,
        response: { 200: ssoUrlSchema },
      },
      handler: (request) =>
        signIn.start({
          domain: request.body.domain,
          providerId: request.body.provider_id,
          redirectUri: request.body.redirect_uri,
          codeChallenge: request.body.code_challenge,
        }),
    });

    app.get('/api/auth/sso/saml/metadata', {
      config: publicAccess,
      schema: {
        tags,
        summary: "Plinth's SAML service-provider metadata (entity id, ACS)",
        response: { 200: z.string() },
      },
      handler: async (_request, reply) => reply.type('application/samlmetadata+xml; charset=utf-8').send(metadataXml()),
    });

    app.post('/api/auth/sso/saml/acs', {
      config: publicAccess,
      schema: {
        tags,
        summary: "The assertion consumer service: on to the app's redirect with svc_code",
        body: acsBodySchema,
        response: { 302: z.null().describe('Redirect to the app with svc_code') },
      },
      handler: async (request, reply) => {
        const location = await signIn.consume({
          samlResponse: request.body.SAMLResponse,
          relayState: request.body.RelayState,
        });
        return reply.redirect(location, 302);
      },
    });
  };
}
