// The admin's SAML identity providers: registered from metadata XML or a metadata URL (fetched from
// a loopback IdP under the outbound address policy), with domains that belong to one provider and
// an attribute mapping; listed, updated and deleted, each write audited; bad metadata and taken
// domains refused with nothing written. Also Plinth's own service-provider metadata.
import { DOMParser } from '@xmldom/xmldom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeIdpKey, type SamlIdp, startSamlIdp } from '../../harness/saml-idp.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let idp: SamlIdp;
let other: SamlIdp;
const admin = () => ({ 'x-api-key': t.apiKey });
const providers = '/api/auth/sso/providers';

beforeAll(async () => {
  const key = await makeIdpKey();
  [idp, other] = await Promise.all([
    startSamlIdp({ now: () => t.clock.now(), key }),
    startSamlIdp({ now: () => t.clock.now(), key }),
  ]);
  // Only the first IdP's origin is allowed: the second one's loopback address is refused.
  t = await startTestApp({ env: { OUTBOUND_ALLOWED_ORIGINS: new URL(idp.metadataUrl).origin } });
});
afterAll(async () => {
  await t?.close();
  await Promise.all([idp?.close(), other?.close()]);
});

const create = (payload: Record<string, unknown>) =>
  t.request({ method: 'POST', url: providers, headers: admin(), payload });
const list = async () => (await t.request({ method: 'GET', url: providers, headers: admin() })).json;

async function auditsOf(action: string) {
  await t.app.logs!.flush();
  const res = await t.request({
    method: 'GET',
    url: `/api/logs/audits?module=AUTH&action=${encodeURIComponent(action)}`,
    headers: admin(),
  });
  expect([200, 206]).toContain(res.statusCode);
  return res.json as { action: string; details: Record<string, unknown> }[];
}

describe('SSO providers (admin)', () => {
  it('registers a provider from its metadata URL, reads, updates and deletes it, each write audited', async () => {
    const created = await create({ name: 'Acme', metadataUrl: idp.metadataUrl, domains: ['Acme.test', 'acme.test'] });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json).toMatchObject({
      type: 'saml',
      name: 'Acme',
      saml: { entityId: idp.entityId, ssoUrl: idp.ssoUrl, metadataUrl: idp.metadataUrl, metadataXml: idp.metadataXml },
      domains: [{ domain: 'acme.test' }],
    });
    expect(created.json.saml.attributeMapping.keys.email).toBeDefined();
    const id = created.json.id as string;

    const got = await t.request({ method: 'GET', url: `${providers}/${id}`, headers: admin() });
    expect(got.json).toEqual(created.json);
    expect((await list()).data.map((p: { id: string }) => p.id)).toContain(id);

    const updated = await t.request({
      method: 'PUT',
      url: `${providers}/${id}`,
      headers: admin(),
      payload: { domains: ['acme.test', 'acme-corp.test'], attributeMapping: { keys: { email: { name: 'mail' } } } },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json.domains).toEqual([{ domain: 'acme-corp.test' }, { domain: 'acme.test' }]);
    expect(updated.json.saml.attributeMapping).toEqual({ keys: { email: { name: 'mail' } } });

    const removed = await t.request({ method: 'DELETE', url: `${providers}/${id}`, headers: admin() });
    expect(removed.statusCode, removed.body).toBe(200);
    expect((await t.request({ method: 'GET', url: `${providers}/${id}`, headers: admin() })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `${providers}/${id}`, headers: admin() })).statusCode).toBe(404);

    expect(await auditsOf(`POST ${providers}`)).not.toHaveLength(0);
    const puts = await auditsOf(`PUT ${providers}/:id`);
    expect(puts.at(0)?.details).toMatchObject({ target: { id } });
    expect(await auditsOf(`DELETE ${providers}/:id`)).not.toHaveLength(0);
  });

  it('gives a domain to one provider only: a taken domain is a 409 and nothing is written', async () => {
    const first = await create({ metadataXml: idp.metadataXml, domains: ['shared.test'] });
    expect(first.statusCode, first.body).toBe(201);
    const otherXml = other.metadataXml;
    const clash = await create({ metadataXml: otherXml, domains: ['fresh.test', 'shared.test'] });
    expect(clash.statusCode, clash.body).toBe(409);
    expect(clash.json).toMatchObject({ error: 'CONFLICT', nextActions: expect.any(String) });
    expect(clash.json.message).toContain('shared.test');
    const entityIds = (await list()).data.map((p: { saml: { entityId: string } }) => p.saml.entityId);
    expect(entityIds).not.toContain(other.entityId);

    // The same IdP twice is refused too.
    const twice = await create({ metadataXml: idp.metadataXml, domains: [] });
    expect(twice.statusCode, twice.body).toBe(409);

    // Updating metadata must keep the entity id (identities are linked to this provider).
    const swap = await t.request({
      method: 'PUT',
      url: `${providers}/${first.json.id}`,
      headers: admin(),
      payload: { metadataXml: otherXml },
    });
    expect(swap.statusCode, swap.body).toBe(400);
    await t.request({ method: 'DELETE', url: `${providers}/${first.json.id}`, headers: admin() });
  });

  it('refuses bad metadata and metadata URLs the outbound policy does not allow, with a clear 400', async () => {
    const before = (await list()).count;
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ metadataXml: '<not-closed' }, /well-formed/],
      [{ metadataXml: '<x xmlns="urn:other"/>' }, /EntityDescriptor/],
      [
        {
          metadataXml: idp.metadataXml
            .replace('IDPSSODescriptor', 'SPSSODescriptor')
            .replace('IDPSSODescriptor', 'SPSSODescriptor'),
        },
        /IDPSSODescriptor/,
      ],
      [{ metadataXml: idp.metadataXml.replace(/<ds:X509Certificate>[^<]+/, '<ds:X509Certificate>AAAA') }, /X\.509/],
      [
        {
          metadataXml: idp.metadataXml.replace(
            /Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="[^"]+"/,
            'Binding="x" Location="y"',
          ),
        },
        /HTTP-Redirect/,
      ],
      [{ metadataUrl: other.metadataUrl }, /OUTBOUND_ALLOWED_ORIGINS/],
      [{ metadataUrl: `${new URL(idp.metadataUrl).origin}/missing` }, /answered 404/],
      [{ metadataUrl: 'file:///etc/passwd' }, /./],
      [{ metadataXml: idp.metadataXml, metadataUrl: idp.metadataUrl }, /exactly one/],
      [{ metadataXml: idp.metadataXml, domains: ['not a domain'] }, /domain/],
    ];
    for (const [payload, message] of cases) {
      const res = await create({ domains: [], ...payload });
      expect(res.statusCode, `${JSON.stringify(payload).slice(0, 80)} → ${res.body}`).toBe(400);
      expect(`${res.json.message} ${JSON.stringify(res.json.details ?? [])} ${res.json.nextActions}`).toMatch(message);
    }
    expect((await list()).count).toBe(before);
  });

  it('serves Plinth service-provider metadata with its entity id and ACS', async () => {
    const res = await t.request({ method: 'GET', url: '/api/auth/sso/saml/metadata' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('xml');
    const doc = new DOMParser().parseFromString(res.body, 'text/xml');
    const root = doc.documentElement!;
    expect(root.getAttribute('entityID')).toBe(`${t.config.apiBaseUrl}/api/auth/sso/saml/metadata`);
    const acs = root.getElementsByTagNameNS('urn:oasis:names:tc:SAML:2.0:metadata', 'AssertionConsumerService')[0]!;
    expect(acs.getAttribute('Location')).toBe(`${t.config.apiBaseUrl}/api/auth/sso/saml/acs`);
    expect(acs.getAttribute('Binding')).toBe('urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST');
  });
});
