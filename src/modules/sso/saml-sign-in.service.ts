// SAML sign-in: the start (the provider found by email domain or id; an AuthnRequest whose
// RelayState is the flow id) and the assertion consumer service (node-saml verifies the signature
// and audience, assertion-checks.ts the rest; the user is found or created by OAuth's rules with
// the identity sso:<providerId>, in the transaction that spends the flow; the app gets OAuth's
// svc_code for the same PKCE exchange). The admin's test sign-in runs the same checks, signs
// nobody in, and keeps the outcome for the console.
import { randomBytes, randomUUID } from 'node:crypto';
import { SAML, type SamlConfig } from '@node-saml/node-saml';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import { assertRedirectAllowed, readAuthConfig } from '../auth/index.js';
import { issueCodeRedirect, resolveAccountIn } from '../oauth/index.js';
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

const providerNotFound = () =>
  new AppError('NOT_FOUND', 'SSO provider not found.', {
    nextActions: 'List the providers with GET /api/auth/sso/providers and use one of their ids.',
  });

/** What a test sign-in found: the assertion's user and attributes, or why it was refused. */
export type TestOutcome =
  | {
      passed: true;
      nameId: string;
      email: string;
      name: string | null;
      mapped: Record<string, string | undefined>;
      attributes: Record<string, unknown>;
    }
  | { passed: false; error: string; message: string };

export type SamlSignInService = ReturnType<typeof createSamlSignInService>;

export function createSamlSignInService(deps: Pick<Deps, 'sql' | 'clock' | 'config'>) {
  const { acsUrl } = serviceProviderUrls(deps.config.apiBaseUrl);

  /** A new flow of `provider` and the IdP URL that starts it (HTTP-Redirect binding, RelayState = flow id). */
  async function startFlow(
    provider: repo.ProviderRow,
    flowId: string,
    f: { redirectUri: string; codeChallenge: string | null; wire: 'supabase' | null; purpose: repo.FlowPurpose },
  ) {
    // An xs:ID: it must not start with a digit.
    const requestId = `_${randomBytes(20).toString('hex')}`;
    const url = await samlFor(deps.config.apiBaseUrl, provider, requestId).getAuthorizeUrlAsync(flowId, undefined, {});
    const now = deps.clock.now();
    await repo.insertFlow(deps.sql, {
      id: flowId,
      providerId: provider.id,
      requestId,
      ...f,
      now,
      expiresAt: new Date(now.getTime() + FLOW_TTL_MS),
    });
    return url;
  }

  /** The provider's answer with every check passed (throws the refusal otherwise). */
  async function verifiedAssertion(flow: repo.FlowRow, provider: repo.ProviderRow, samlResponse: string, now: Date) {
    checkResponseEnvelope(samlResponse, { acsUrl, requestId: flow.requestId });
    let profile: Awaited<ReturnType<SAML['validatePostResponseAsync']>>['profile'];
    try {
      ({ profile } = await samlFor(deps.config.apiBaseUrl, provider).validatePostResponseAsync({
        SAMLResponse: samlResponse,
      }));
    } catch (err) {
      throw refused(`${(err as Error).message}`.slice(0, 300));
    }
    if (!profile) throw refused('the response carries no assertion.');
    const checked = checkAssertion(profile, { provider, acsUrl, requestId: flow.requestId, now });
    const { email, name, mapped } = mapAttributes(checked, provider.attributeMapping);
    if (!email) throw refused('the assertion carries no email address (check the attribute mapping).');
    const domain = email.slice(email.lastIndexOf('@') + 1);
    // An IdP speaks only for the domains the admin gave it: otherwise it could name any user.
    if (!email.includes('@') || !provider.domains.includes(domain)) {
      throw new AppError('FORBIDDEN', `This identity provider does not serve ${domain}.`, {
        nextActions: "The project admin can add the domain to the provider's domains.",
      });
    }
    if (await repo.assertionSeen(deps.sql, provider.id, checked.assertionId)) throw replayed();
    return { checked, email, name, mapped };
  }

  /** A test flow's answer: the outcome is kept (a refusal too) and the browser goes back to the console. */
  async function consumeTest(flow: repo.FlowRow, provider: repo.ProviderRow, samlResponse: string, now: Date) {
    let outcome: TestOutcome;
    let assertion: Awaited<ReturnType<typeof verifiedAssertion>> | undefined;
    try {
      assertion = await verifiedAssertion(flow, provider, samlResponse, now);
      const { checked, email, name, mapped } = assertion;
      outcome = {
        passed: true,
        nameId: checked.nameId,
        email,
        name: name ?? null,
        mapped,
        attributes: checked.attributes,
      };
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      outcome = { passed: false, error: err.code, message: err.message };
    }
    await deps.sql.begin(async (tx) => {
      if (!(await repo.recordTestResult(tx, flow.id, outcome, now))) throw unknownFlow();
      // A tested assertion is spent like any other: it cannot be replayed to sign in.
      if (assertion)
        await repo.rememberAssertion(tx, provider.id, assertion.checked.assertionId, assertion.checked.expiresAt);
    });
    return flow.redirectUri;
  }

  return {
    /** The IdP URL to send the browser to. */
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
      const url = await startFlow(provider, randomUUID(), {
        redirectUri: input.redirectUri,
        codeChallenge: input.codeChallenge,
        wire: input.wire ?? null,
        purpose: 'sign-in',
      });
      return { url };
    },

    /**
     * The admin's test sign-in: the IdP URL of a flow that signs nobody in. The IdP's answer
     * goes through every check and the browser comes back to the console's page of the outcome.
     */
    async startTest(providerId: string) {
      const provider = await repo.findProvider(deps.sql, providerId);
      if (!provider) throw providerNotFound();
      const id = randomUUID();
      const url = await startFlow(provider, id, {
        redirectUri: `${deps.config.apiBaseUrl}/dashboard/auth-settings/sso/test/${id}`,
        codeChallenge: null,
        wire: null,
        purpose: 'test',
      });
      return { id, url };
    },

    /** A test sign-in's outcome: pending until the IdP answers; gone when the flow expires. */
    async testResult(id: string) {
      const flow = UUID.test(id) ? await repo.findTestFlow(deps.sql, id, deps.clock.now()) : undefined;
      if (!flow) {
        throw new AppError('NOT_FOUND', 'Unknown or expired SSO test sign-in.', {
          nextActions: 'Start a new test with POST /api/auth/sso/providers/{id}/test.',
        });
      }
      const result = flow.result as TestOutcome | null;
      return {
        id,
        providerId: flow.providerId,
        status: result === null ? ('pending' as const) : result.passed ? ('passed' as const) : ('failed' as const),
        ...(result ? { result } : {}),
      };
    },

    /** The IdP's POST: where the browser goes next (the app's redirect with svc_code, or the console). */
    async consume(input: { samlResponse: string; relayState?: string }): Promise<string> {
      const now = deps.clock.now();
      if (!input.relayState || !UUID.test(input.relayState)) throw unknownFlow();
      const flow = await repo.findLiveFlow(deps.sql, input.relayState, now);
      const provider = flow && (await repo.findProvider(deps.sql, flow.providerId));
      if (!flow || !provider) throw unknownFlow();
      if (flow.purpose === 'test') return consumeTest(flow, provider, input.samlResponse, now);

      const { checked, email, name } = await verifiedAssertion(flow, provider, input.samlResponse, now);
      // One transaction: the flow is spent, the assertion remembered and the user found or
      // created together, or none of it (a refused account leaves the flow usable and no user behind).
      return deps.sql.begin(async (tx) => {
        const spent = await repo.consumeFlow(tx, flow.id, now);
        if (!spent?.codeChallenge) throw unknownFlow();
        if (!(await repo.rememberAssertion(tx, provider.id, checked.assertionId, checked.expiresAt))) throw replayed();
        const userId = await resolveAccountIn(tx, now, `sso:${provider.id}`, {
          accountId: checked.nameId,
          email,
          emailVerified: true,
          ...(name ? { name } : {}),
        });
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
