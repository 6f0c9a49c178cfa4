// SAML sign-in: the start (the provider found by email domain or id; an AuthnRequest whose
// RelayState is the flow id) and the assertion consumer service (node-saml verifies the signature
// and audience, assertion-checks.ts the rest; the user is found or created by OAuth's rules with
// the identity sso:<providerId>; the app gets OAuth's svc_code for the same PKCE exchange).
import { randomBytes, randomUUID } from 'node:crypto';
import { SAML, type SamlConfig } from '@node-saml/node-saml';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import { assertRedirectAllowed, readAuthConfig } from '../auth/index.js';
import { issueCodeRedirect, resolveAccount } from '../oauth/index.js';
import { checkAssertion, checkResponseEnvelope, mapAttributes, refused } from './assertion-checks.js';
import * as repo from './sso.repo.js';

const FLOW_TTL_MS = 10 * 60 * 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const pem = (body: string) =>
  `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----`;

export function serviceProviderUrls(apiBaseUrl: string) {
  return {
    entityId: `${apiBaseUrl}/api/auth/sso/saml/metadata`,
    acsUrl: `${apiBaseUrl}/api/auth/sso/saml/acs`,
  };
}

/** node-saml as Plinth's service provider for one IdP. Time checks are Plinth's (injected clock). */
function samlFor(apiBaseUrl: string, provider: repo.ProviderRow, requestId?: string) {
  const sp = serviceProviderUrls(apiBaseUrl);
  const config: SamlConfig = {
    issuer: sp.entityId,
    callbackUrl: sp.acsUrl,
    audience: sp.entityId,
    entryPoint: provider.ssoUrl,
    idpCert: provider.certificates.map(pem),
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: -1,
    identifierFormat: null,
    disableRequestedAuthnContext: true,
    ...(requestId ? { generateUniqueId: () => requestId } : {}),
  };
  return new SAML(config);
}

export function serviceProviderMetadata(apiBaseUrl: string): string {
  const sp = serviceProviderUrls(apiBaseUrl);
  return new SAML({
    issuer: sp.entityId,
    callbackUrl: sp.acsUrl,
    idpCert: 'unused',
    wantAssertionsSigned: true,
    identifierFormat: null,
  }).generateServiceProviderMetadata(null);
}

const unknownFlow = () =>
  new AppError('VALIDATION_ERROR', 'Unknown or expired SSO sign-in (RelayState).', {
    nextActions: 'Start the sign-in again from the app (POST /api/auth/sso).',
  });

export type SamlSignInService = ReturnType<typeof createSamlSignInService>;

export function createSamlSignInService(deps: Pick<Deps, 'sql' | 'clock' | 'config'>) {
  const { acsUrl } = serviceProviderUrls(deps.config.apiBaseUrl);

  return {
    /** The IdP URL to send the browser to (HTTP-Redirect binding, RelayState = flow id). */
    async start(input: {
      domain?: string;
      providerId?: string;
      redirectUri: string;
      codeChallenge: string;
      /** 'supabase': the ACS sends the browser back with `code` (supabase-js). */
      wire?: 'supabase';
    }) {
      assertRedirectAllowed(input.redirectUri, (await readAuthConfig(deps.sql)).allowedRedirectUrls);
      const provider = input.domain
        ? await repo.findProviderByDomain(deps.sql, input.domain)
        : await repo.findProvider(deps.sql, input.providerId!);
      if (!provider) {
        throw new AppError(
          'NOT_FOUND',
          input.domain ? `No SSO provider serves ${input.domain}.` : 'SSO provider not found.',
          {
            nextActions:
              'Sign in another way, or ask the project admin to register an identity provider for this domain.',
          },
        );
      }
      // An xs:ID: it must not start with a digit.
      const requestId = `_${randomBytes(20).toString('hex')}`;
      const flowId = randomUUID();
      const url = await samlFor(deps.config.apiBaseUrl, provider, requestId).getAuthorizeUrlAsync(
        flowId,
        undefined,
        {},
      );
      const now = deps.clock.now();
      await repo.insertFlow(deps.sql, {
        id: flowId,
        providerId: provider.id,
        requestId,
        redirectUri: input.redirectUri,
        codeChallenge: input.codeChallenge,
        wire: input.wire ?? null,
        now,
        expiresAt: new Date(now.getTime() + FLOW_TTL_MS),
      });
      return { url };
    },

    /** The IdP's POST: where the browser goes next (the app's redirect with svc_code). */
    async consume(input: { samlResponse: string; relayState?: string }): Promise<string> {
      const now = deps.clock.now();
      if (!input.relayState || !UUID.test(input.relayState)) throw unknownFlow();
      const flow = await repo.findLiveFlow(deps.sql, input.relayState, now);
      const provider = flow && (await repo.findProvider(deps.sql, flow.providerId));
      if (!flow || !provider) throw unknownFlow();

      checkResponseEnvelope(input.samlResponse, { acsUrl, requestId: flow.requestId });
      let profile: Awaited<ReturnType<SAML['validatePostResponseAsync']>>['profile'];
      try {
        ({ profile } = await samlFor(deps.config.apiBaseUrl, provider).validatePostResponseAsync({
          SAMLResponse: input.samlResponse,
        }));
      } catch (err) {
        throw refused(`${(err as Error).message}`.slice(0, 300));
      }
      if (!profile) throw refused('the response carries no assertion.');
      const checked = checkAssertion(profile, { provider, acsUrl, requestId: flow.requestId, now });
      const { email, name } = mapAttributes(checked, provider.attributeMapping);
      if (!email) throw refused('the assertion carries no email address (check the attribute mapping).');
      const domain = email.slice(email.lastIndexOf('@') + 1);
      // An IdP speaks only for the domains the admin gave it: otherwise it could name any user.
      if (!email.includes('@') || !provider.domains.includes(domain)) {
        throw new AppError('FORBIDDEN', `This identity provider does not serve ${domain}.`, {
          nextActions: "The project admin can add the domain to the provider's domains.",
        });
      }
      if (await repo.assertionSeen(deps.sql, provider.id, checked.assertionId)) throw replayed();

      const userId = await resolveAccount(deps, `sso:${provider.id}`, {
        accountId: checked.nameId,
        email,
        emailVerified: true,
        ...(name ? { name } : {}),
      });
      return deps.sql.begin(async (tx) => {
        const spent = await repo.consumeFlow(tx, flow.id, now);
        if (!spent) throw unknownFlow();
        if (!(await repo.rememberAssertion(tx, provider.id, checked.assertionId, checked.expiresAt))) throw replayed();
        await repo.pruneExpired(tx, now);
        return issueCodeRedirect(tx, now, {
          userId,
          codeChallenge: spent.codeChallenge,
          redirectUri: spent.redirectUri,
          ...(spent.wire ? { wire: spent.wire } : {}),
        });
      });
    },
  };
}

const replayed = () =>
  new AppError('VALIDATION_ERROR', 'The SAML response was refused: this assertion was already used.', {
    nextActions: 'Start the sign-in again from the app.',
  });
