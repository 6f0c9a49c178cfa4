// SAML single sign-on through a real SAML identity provider on loopback (test/harness/saml-idp.ts,
// signing with xml-crypto): sign-in by email domain → the IdP → Plinth's ACS → svc_code → OAuth's
// PKCE exchange → a session; the user is created once and found again. Each bad answer (signature,
// audience, recipient, time, replay, wrong request, foreign domain, malformed) is a clear 4xx that
// leaves nothing behind: no user, no identity, the flow still usable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchangeCode, pkcePair, redirectOf, userById, usersWithEmail } from '../../harness/oauth-flow.js';
import { type AssertionTweaks, type IdpUser, makeIdpKey, type SamlIdp, startSamlIdp } from '../../harness/saml-idp.js';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

const APP_REDIRECT = 'https://app.example/sso/callback';
const ACS_PATH = '/api/auth/sso/saml/acs';

let t: TestApp;
let idp: SamlIdp;
let providerId: string;
const admin = () => ({ 'x-api-key': t.apiKey });

beforeAll(async () => {
  idp = await startSamlIdp({ now: () => t.clock.now() });
  t = await startTestApp({ env: { OUTBOUND_ALLOWED_ORIGINS: new URL(idp.metadataUrl).origin } });
  const config = await t.request({
    method: 'PUT',
    url: '/api/auth/config',
    headers: admin(),
    payload: { allowedRedirectUrls: [APP_REDIRECT] },
  });
  expect(config.statusCode, config.body).toBe(200);
  const created = await t.request({
    method: 'POST',
    url: '/api/auth/sso/providers',
    headers: admin(),
    payload: { metadataUrl: idp.metadataUrl, domains: ['acme.test', 'Sub.Acme.Test'] },
  });
  expect(created.statusCode, created.body).toBe(201);
  providerId = created.json.id;
});
afterAll(async () => {
  await t?.close();
  await idp?.close();
});

/** The app asks for the SSO URL; the browser takes it to the IdP, which answers the ACS form. */
async function startAndVisit(user: IdpUser, tweaks: AssertionTweaks = {}, start: Record<string, string> = {}) {
  const pkce = pkcePair();
  const res = await t.request({
    method: 'POST',
    url: '/api/auth/sso',
    payload: {
      domain: user.email?.split('@')[1] ?? 'acme.test',
      redirect_uri: APP_REDIRECT,
      code_challenge: pkce.challenge,
      ...start,
    },
  });
  expect(res.statusCode, res.body).toBe(200);
  idp.actAs(user, tweaks);
  const form = await idp.visit(res.json.url);
  return { pkce, form, authUrl: res.json.url as string };
}

function postAcs(form: { SAMLResponse: string; RelayState?: string | undefined }) {
  const body = new URLSearchParams({
    SAMLResponse: form.SAMLResponse,
    ...(form.RelayState ? { RelayState: form.RelayState } : {}),
  });
  return t.request({
    method: 'POST',
    url: ACS_PATH,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: body.toString(),
  });
}

async function signIn(user: IdpUser) {
  const { pkce, form } = await startAndVisit(user);
  const redirect = redirectOf(await postAcs(form));
  expect(redirect.base).toBe(APP_REDIRECT);
  const session = await exchangeCode(t, redirect.params.svc_code!, pkce.verifier);
  expect(session.statusCode, session.body).toBe(200);
  return session.json as { user: { id: string; email: string; providers?: string[] }; accessToken: string };
}

function expectRefused(res: Awaited<ReturnType<typeof postAcs>>, message: RegExp, status = 400) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json).toMatchObject({ statusCode: status, nextActions: expect.any(String) });
  expect(res.json.message).toMatch(message);
  expect(res.headers.location).toBeUndefined();
}

describe('SAML sign-in by email domain', () => {
  it('sends the browser to the IdP with an AuthnRequest for the ACS, and back to a Plinth session', async () => {
    const user = { nameId: 'acme-0001', email: 'alice@acme.test', name: 'Alice Example' };
    const first = await signIn(user);
    expect(first.user.email).toBe('alice@acme.test');
    const request = idp.requests.at(-1)!;
    expect(request.acsUrl).toBe(`${t.config.apiBaseUrl}${ACS_PATH}`);
    expect(request.issuer).toBe(`${t.config.apiBaseUrl}/api/auth/sso/saml/metadata`);

    const me = await t.request({
      method: 'GET',
      url: '/api/auth/sessions/current',
      headers: bearer(first.accessToken),
    });
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json.user).toMatchObject({ id: first.user.id, email: 'alice@acme.test' });
    expect((await userById(t, first.user.id)).providers).toContain(`sso:${providerId}`);

    // Later sign-ins find the same user through the linked identity.
    const again = await signIn(user);
    expect(again.user.id).toBe(first.user.id);
    expect(await usersWithEmail(t, 'alice@acme.test')).toHaveLength(1);
  });

  it('signs in by provider id too, and maps the name from the attribute mapping', async () => {
    const updated = await t.request({
      method: 'PUT',
      url: `/api/auth/sso/providers/${providerId}`,
      headers: admin(),
      payload: { attributeMapping: { keys: { email: { name: 'corpMail' }, name: { name: 'fullName' } } } },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    try {
      const pkce = pkcePair();
      const res = await t.request({
        method: 'POST',
        url: '/api/auth/sso',
        payload: { provider_id: providerId, redirect_uri: APP_REDIRECT, code_challenge: pkce.challenge },
      });
      expect(res.statusCode, res.body).toBe(200);
      idp.actAs({ nameId: 'acme-0002', attributes: { corpMail: 'Bob@Sub.Acme.Test', fullName: 'Bob Mapped' } });
      const redirect = redirectOf(await postAcs(await idp.visit(res.json.url)));
      const session = await exchangeCode(t, redirect.params.svc_code!, pkce.verifier);
      expect(session.statusCode, session.body).toBe(200);
      expect(session.json.user).toMatchObject({ email: 'bob@sub.acme.test', profile: { name: 'Bob Mapped' } });
    } finally {
      await t.request({
        method: 'PUT',
        url: `/api/auth/sso/providers/${providerId}`,
        headers: admin(),
        payload: { attributeMapping: { keys: { email: { name: 'email' }, name: { name: 'displayName' } } } },
      });
    }
  });

  it('answers 404 with a next step for a domain no provider serves, and 400 for a redirect not allowed', async () => {
    const pkce = pkcePair();
    const unknown = await t.request({
      method: 'POST',
      url: '/api/auth/sso',
      payload: { domain: 'nobody.test', redirect_uri: APP_REDIRECT, code_challenge: pkce.challenge },
    });
    expect(unknown.statusCode, unknown.body).toBe(404);
    expect(unknown.json).toMatchObject({ error: 'NOT_FOUND', message: 'No SSO provider serves nobody.test.' });
    expect(unknown.json.nextActions).toEqual(expect.any(String));

    const foreign = await t.request({
      method: 'POST',
      url: '/api/auth/sso',
      payload: { domain: 'acme.test', redirect_uri: 'https://evil.example/steal', code_challenge: pkce.challenge },
    });
    expect(foreign.statusCode, foreign.body).toBe(400);
    const neither = await t.request({
      method: 'POST',
      url: '/api/auth/sso',
      payload: { redirect_uri: APP_REDIRECT, code_challenge: pkce.challenge },
    });
    expect(neither.statusCode, neither.body).toBe(400);
  });
});

describe('refused answers change nothing', () => {
  let victims = 0;
  const victim = () => {
    victims += 1;
    return { nameId: `acme-victim-${victims}`, email: `victim${victims}@acme.test` };
  };

  /**
   * Refused with a clear 4xx and no user made; then the same flow (RelayState, AuthnRequest)
   * still completes when the IdP answers honestly: the refusal spent nothing.
   */
  async function refusedThenHonest(tweaks: AssertionTweaks, message: RegExp, user: IdpUser = victim()) {
    const { pkce, form, authUrl } = await startAndVisit(user, tweaks);
    expectRefused(await postAcs(form), message);
    expect(await usersWithEmail(t, user.email!)).toHaveLength(0);
    idp.actAs(user);
    const honest = await idp.visit(authUrl);
    expect(honest.RelayState).toBe(form.RelayState);
    const redirect = redirectOf(await postAcs(honest));
    const session = await exchangeCode(t, redirect.params.svc_code!, pkce.verifier);
    expect(session.statusCode, session.body).toBe(200);
    expect(session.json.user.email).toBe(user.email);
  }

  it('refuses an assertion signed by another key (its own certificate in KeyInfo)', async () => {
    const attacker = await makeIdpKey('Attacker');
    await refusedThenHonest({ signWith: attacker }, /signature/i);
  });

  it('refuses a signed assertion edited after signing', async () => {
    const user = victim();
    await refusedThenHonest({ tamper: (xml) => xml.replace(user.email, 'ceo@acme.test') }, /signature/i, user);
    expect(await usersWithEmail(t, 'ceo@acme.test')).toHaveLength(0);
  });

  it('requires the assertion itself to be signed: unsigned, or only the envelope signed, is refused', async () => {
    await refusedThenHonest({ sign: 'none' }, /signature/i);
    await refusedThenHonest({ sign: 'response' }, /signature/i);
  });

  it.each([
    ['audience', { audience: 'https://other-sp.example/metadata' }, /audience/i],
    ['recipient', { recipient: 'https://other-sp.example/acs' }, /recipient/i],
    ['destination', { destination: 'https://other-sp.example/acs' }, /addressed to/i],
    ['issuer', { issuer: 'https://impostor.example/entity' }, /issued by/i],
  ] as const)('refuses another %s', async (_what, tweaks, message) => {
    await refusedThenHonest(tweaks, message);
  });

  it('refuses an assertion whose signed subject confirmation answers another sign-in request', async () => {
    await refusedThenHonest({ inResponseTo: '_someone-elses-request' }, /another sign-in request/i);
  });

  it('refuses an assertion expired by the server clock; the flow then completes with a fresh answer', async () => {
    const user = victim();
    const { pkce, form, authUrl } = await startAndVisit(user, { lifetimeSeconds: 60 });
    t.clock.advance(3 * 60 * 1000); // past NotOnOrAfter plus the minute of allowed skew
    expectRefused(await postAcs(form), /expired/i);
    expect(await usersWithEmail(t, user.email)).toHaveLength(0);
    idp.actAs(user);
    const redirect = redirectOf(await postAcs(await idp.visit(authUrl)));
    expect((await exchangeCode(t, redirect.params.svc_code!, pkce.verifier)).statusCode).toBe(200);
  });

  it('refuses an assertion that is not valid yet', async () => {
    // The IdP's clock runs five minutes ahead of ours for this answer only.
    await refusedThenHonest({ shiftSeconds: 300 }, /not valid yet/i);
  });

  it('refuses a replayed assertion (its id is remembered), giving no second code', async () => {
    const { form } = await startAndVisit({ nameId: 'acme-0003', email: 'carol@acme.test' });
    const first = redirectOf(await postAcs(form));
    expect(first.params.svc_code).toBeTruthy();
    expectRefused(await postAcs(form), /already used/i);
    const [row] = await t.deps
      .sql`select count(*)::int as n from auth.saml_assertions where provider_id = ${providerId}`;
    expect(row!.n).toBeGreaterThan(0);
  });

  it('refuses an address outside the domains the provider serves (403), creating nobody', async () => {
    const { form } = await startAndVisit(
      { nameId: 'acme-0004', email: 'mallory@victim-corp.test' },
      {},
      { domain: 'acme.test' },
    );
    expectRefused(await postAcs(form), /does not serve victim-corp\.test/, 403);
    expect(await usersWithEmail(t, 'mallory@victim-corp.test')).toHaveLength(0);
  });

  it('answers malformed posts with a clear 400', async () => {
    const { form } = await startAndVisit({ nameId: 'acme-0005', email: 'dave@acme.test' });
    expectRefused(
      await postAcs({ SAMLResponse: 'not-base64-xml!!', RelayState: form.RelayState }),
      /not a base64 SAML Response/,
    );
    expectRefused(
      await postAcs({
        SAMLResponse: Buffer.from('<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"').toString(
          'base64',
        ),
        RelayState: form.RelayState,
      }),
      /not a base64 SAML Response/,
    );
    expectRefused(await postAcs({ SAMLResponse: form.SAMLResponse }), /RelayState/);
    expectRefused(await postAcs({ SAMLResponse: form.SAMLResponse, RelayState: 'forged' }), /RelayState/);
    const empty = await t.request({
      method: 'POST',
      url: ACS_PATH,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(empty.statusCode).toBe(400);
    expect(await usersWithEmail(t, 'dave@acme.test')).toHaveLength(0);
  });
});

describe('the account is resolved in the transaction that spends the flow', () => {
  it('a refused account (an existing verified user, linking by email off) spends nothing: the same answer completes once linking is allowed', async () => {
    const existing = await t.signUp('erin@acme.test');
    await t.deps.sql`update auth.users set email_verified = true where id = ${existing.user.id}`;
    const { pkce, form } = await startAndVisit({ nameId: 'acme-erin', email: 'erin@acme.test' });
    const refused = await postAcs(form);
    expectRefused(refused, /already exists/, 409);

    await t.request({ method: 'PUT', url: '/api/auth/config', headers: admin(), payload: { linkOAuthByEmail: true } });
    try {
      // The flow was not spent nor the assertion remembered: the same post now signs in.
      const redirect = redirectOf(await postAcs(form));
      const session = await exchangeCode(t, redirect.params.svc_code!, pkce.verifier);
      expect(session.statusCode, session.body).toBe(200);
      expect(session.json.user.id).toBe(existing.user.id);
    } finally {
      await t.request({
        method: 'PUT',
        url: '/api/auth/config',
        headers: admin(),
        payload: { linkOAuthByEmail: false },
      });
    }
  });
});

describe("the admin's test sign-in", () => {
  const startTest = () =>
    t.request({ method: 'POST', url: `/api/auth/sso/providers/${providerId}/test`, headers: admin() });
  const testResult = (id: string) => t.request({ method: 'GET', url: `/api/auth/sso/tests/${id}`, headers: admin() });

  it('runs the IdP round trip with every check, shows what the assertion said, and signs nobody in', async () => {
    const started = await startTest();
    expect(started.statusCode, started.body).toBe(200);
    const { id, url } = started.json;
    expect((await testResult(id)).json).toEqual({ id, providerId, status: 'pending' });

    idp.actAs({ nameId: 'acme-tester', email: 'tester@acme.test', name: 'Tess Tester' });
    const form = await idp.visit(url);
    expect(form.RelayState).toBe(id);
    const res = await postAcs(form);
    expect(res.statusCode, res.body).toBe(302);
    expect(res.headers.location).toBe(`${t.config.apiBaseUrl}/dashboard/auth-settings/sso/test/${id}`);

    const outcome = await testResult(id);
    expect(outcome.json).toMatchObject({
      status: 'passed',
      result: { passed: true, nameId: 'acme-tester', email: 'tester@acme.test', attributes: expect.any(Object) },
    });
    expect(await usersWithEmail(t, 'tester@acme.test')).toHaveLength(0);
    // The tested answer is spent: posting it again is refused and still signs nobody in.
    expect((await postAcs(form)).statusCode).toBe(400);
    expect(await usersWithEmail(t, 'tester@acme.test')).toHaveLength(0);
  });

  it('a refused answer is kept with the reason, and the browser still comes back to the console', async () => {
    const { id, url } = (await startTest()).json;
    idp.actAs({ nameId: 'acme-tester-2', email: 'tester2@acme.test' }, { signWith: await makeIdpKey('Attacker') });
    const res = await postAcs(await idp.visit(url));
    expect(res.statusCode, res.body).toBe(302);
    expect(res.headers.location).toBe(`${t.config.apiBaseUrl}/dashboard/auth-settings/sso/test/${id}`);
    const outcome = (await testResult(id)).json;
    expect(outcome).toMatchObject({ status: 'failed', result: { passed: false, error: 'VALIDATION_ERROR' } });
    expect(outcome.result.message).toMatch(/signature/i);
    expect(await usersWithEmail(t, 'tester2@acme.test')).toHaveLength(0);
  });

  it('a test flow cannot finish an app sign-in, and unknown tests or providers are 404s', async () => {
    const { id } = (await startTest()).json;
    // A sign-in's answer posted with a test flow's RelayState: checked against the test's request, refused.
    const { form } = await startAndVisit({ nameId: 'acme-frank', email: 'frank@acme.test' });
    const res = await postAcs({ SAMLResponse: form.SAMLResponse, RelayState: id });
    expect(res.headers.location).toBe(`${t.config.apiBaseUrl}/dashboard/auth-settings/sso/test/${id}`);
    expect((await testResult(id)).json.status).toBe('failed');
    expect(await usersWithEmail(t, 'frank@acme.test')).toHaveLength(0);

    const unknownTest = await testResult('00000000-0000-4000-8000-000000000000');
    expect(unknownTest.statusCode).toBe(404);
    expect(unknownTest.json.nextActions).toEqual(expect.any(String));
    const unknownProvider = await t.request({
      method: 'POST',
      url: '/api/auth/sso/providers/00000000-0000-4000-8000-000000000000/test',
      headers: admin(),
    });
    expect(unknownProvider.statusCode).toBe(404);
  });
});
