// A SAML 2.0 identity provider on loopback for the SSO tests: it serves its metadata, reads the
// AuthnRequest a browser brings to its HTTP-Redirect SSO URL (deflated, base64), "signs in" the
// user the test chose and answers the HTTP-POST binding's auto-submitting form to the ACS. The
// assertion is signed by xml-crypto (the library node-saml verifies with) with the IdP's key, a
// self-signed certificate made by `selfsigned`. Tweaks make the bad answers the tests need.
import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inflateRawSync } from 'node:zlib';
import { DOMParser } from '@xmldom/xmldom';
import { generate } from 'selfsigned';
import { SignedXml } from 'xml-crypto';

export interface IdpKey {
  privateKey: string;
  cert: string;
  /** The certificate's base64 DER body, as metadata carries it. */
  certBody: string;
}

export interface IdpUser {
  nameId: string;
  email?: string;
  name?: string;
  /** Extra attributes (name → value). */
  attributes?: Record<string, string>;
}

/** What the IdP gets wrong on purpose. */
export interface AssertionTweaks {
  audience?: string;
  recipient?: string;
  destination?: string;
  issuer?: string;
  /** The signed SubjectConfirmationData's InResponseTo (the envelope keeps the real one). */
  inResponseTo?: string;
  /** Seconds the IdP's clock is ahead of the test's (negative: behind). */
  shiftSeconds?: number;
  /** Seconds the assertion stays valid (default 300). */
  lifetimeSeconds?: number;
  /** Sign with this key instead of the IdP's own (its certificate goes in KeyInfo). */
  signWith?: IdpKey;
  /** 'assertion' (default), 'response' (the envelope only) or 'none'. */
  sign?: 'assertion' | 'response' | 'none';
  /** Edits the signed document before it is sent (tampering). */
  tamper?: (xml: string) => string;
}

export interface SamlIdp {
  entityId: string;
  metadataUrl: string;
  ssoUrl: string;
  metadataXml: string;
  key: IdpKey;
  /** Who the next visit to the SSO URL signs in, and what goes wrong. */
  actAs(user: IdpUser, tweaks?: AssertionTweaks): void;
  /** The browser follows Plinth's SSO URL: the ACS form's action and fields. */
  visit(authUrl: string): Promise<{ action: string; SAMLResponse: string; RelayState: string | undefined }>;
  /** The AuthnRequests the IdP received (parsed). */
  requests: { id: string; acsUrl: string | null; issuer: string | null }[];
  close(): Promise<void>;
}

const esc = (s: string) =>
  s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
const xmlId = () => `_${randomBytes(16).toString('hex')}`;
const SAMLP = 'urn:oasis:names:tc:SAML:2.0:protocol';
const SAML = 'urn:oasis:names:tc:SAML:2.0:assertion';
const generateKeyPairAsync = promisify(generateKeyPair);

export async function makeIdpKey(commonName = 'Plinth test IdP'): Promise<IdpKey> {
  // node:crypto makes the key (forge's own RSA key generation takes seconds); selfsigned the certificate.
  const keyPair = await generateKeyPairAsync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const pems = await generate([{ name: 'commonName', value: commonName }], { algorithm: 'sha256', keyPair });
  const certBody = pems.cert.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  return { privateKey: pems.private, cert: pems.cert, certBody };
}

function sign(xml: string, key: IdpKey, target: 'Assertion' | 'Response'): string {
  const sig = new SignedXml({
    privateKey: key.privateKey,
    publicCert: key.cert,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  const path = target === 'Assertion' ? "//*[local-name(.)='Assertion']" : "/*[local-name(.)='Response']";
  sig.addReference({
    xpath: path,
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  sig.computeSignature(xml, {
    prefix: 'ds',
    location: { reference: `${path}/*[local-name(.)='Issuer']`, action: 'after' },
  });
  return sig.getSignedXml();
}

export async function startSamlIdp(options: { now: () => Date; key?: IdpKey }): Promise<SamlIdp> {
  const key = options.key ?? (await makeIdpKey());
  let acting: { user: IdpUser; tweaks: AssertionTweaks } | null = null;
  const requests: SamlIdp['requests'] = [];

  function responseFor(request: { id: string; acsUrl: string }, sp: string | null): string {
    if (!acting) throw new Error('actAs() first: the IdP has nobody to sign in');
    const { user, tweaks } = acting;
    const now = new Date(options.now().getTime() + (tweaks.shiftSeconds ?? 0) * 1000);
    const until = new Date(now.getTime() + (tweaks.lifetimeSeconds ?? 300) * 1000).toISOString();
    const issuer = esc(tweaks.issuer ?? idp.entityId);
    const attributes = {
      ...(user.email ? { email: user.email } : {}),
      ...(user.name ? { displayName: user.name } : {}),
      ...user.attributes,
    };
    const attributeXml = Object.entries(attributes)
      .map(
        ([name, value]) =>
          `<saml:Attribute Name="${esc(name)}"><saml:AttributeValue>${esc(value)}</saml:AttributeValue></saml:Attribute>`,
      )
      .join('');
    const assertion =
      `<saml:Assertion xmlns:saml="${SAML}" ID="${xmlId()}" Version="2.0" IssueInstant="${now.toISOString()}">` +
      `<saml:Issuer>${issuer}</saml:Issuer>` +
      `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent">${esc(user.nameId)}</saml:NameID>` +
      `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">` +
      `<saml:SubjectConfirmationData InResponseTo="${esc(tweaks.inResponseTo ?? request.id)}" NotOnOrAfter="${until}" Recipient="${esc(tweaks.recipient ?? request.acsUrl)}"/>` +
      `</saml:SubjectConfirmation></saml:Subject>` +
      `<saml:Conditions NotBefore="${now.toISOString()}" NotOnOrAfter="${until}">` +
      `<saml:AudienceRestriction><saml:Audience>${esc(tweaks.audience ?? sp ?? '')}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
      `<saml:AuthnStatement AuthnInstant="${now.toISOString()}" SessionIndex="${xmlId()}"><saml:AuthnContext>` +
      `<saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef>` +
      `</saml:AuthnContext></saml:AuthnStatement>` +
      (attributeXml ? `<saml:AttributeStatement>${attributeXml}</saml:AttributeStatement>` : '') +
      `</saml:Assertion>`;
    let xml =
      `<samlp:Response xmlns:samlp="${SAMLP}" xmlns:saml="${SAML}" ID="${xmlId()}" Version="2.0" IssueInstant="${now.toISOString()}" ` +
      `Destination="${esc(tweaks.destination ?? request.acsUrl)}" InResponseTo="${esc(request.id)}">` +
      `<saml:Issuer>${issuer}</saml:Issuer>` +
      `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
      assertion +
      `</samlp:Response>`;
    const signer = tweaks.signWith ?? key;
    const mode = tweaks.sign ?? 'assertion';
    if (mode === 'assertion') xml = sign(xml, signer, 'Assertion');
    if (mode === 'response') xml = sign(xml, signer, 'Response');
    if (tweaks.tamper) xml = tweaks.tamper(xml);
    return Buffer.from(xml).toString('base64');
  }

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', idp.metadataUrl);
    // A browser visiting the IdP asks for its icon: none, but no 404 in the page's console either.
    if (url.pathname === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    if (url.pathname === '/metadata') {
      res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(idp.metadataXml);
      return;
    }
    if (url.pathname === '/sso') {
      try {
        const xml = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
        const doc = new DOMParser().parseFromString(xml, 'text/xml');
        const root = doc.documentElement!;
        const id = root.getAttribute('ID') ?? '';
        const acsUrl = root.getAttribute('AssertionConsumerServiceURL');
        const issuer = root.getElementsByTagNameNS(SAML, 'Issuer')[0]?.textContent ?? null;
        requests.push({ id, acsUrl, issuer });
        if (!acsUrl) throw new Error('no AssertionConsumerServiceURL');
        const samlResponse = responseFor({ id, acsUrl }, issuer);
        const relay = url.searchParams.get('RelayState');
        const relayInput = relay === null ? '' : `<input type="hidden" name="RelayState" value="${esc(relay)}"/>`;
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<!doctype html><html><body onload="document.forms[0].submit()"><form method="post" action="${esc(acsUrl)}">` +
              `<input type="hidden" name="SAMLResponse" value="${samlResponse}"/>${relayInput}</form></body></html>`,
          );
      } catch (err) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(err));
      }
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const idp: SamlIdp = {
    entityId: `${base}/entity`,
    metadataUrl: `${base}/metadata`,
    ssoUrl: `${base}/sso`,
    metadataXml: '',
    key,
    requests,
    actAs(user, tweaks = {}) {
      acting = { user, tweaks };
    },
    async visit(authUrl) {
      const res = await fetch(authUrl, { redirect: 'manual' });
      const html = await res.text();
      if (res.status !== 200) throw new Error(`IdP answered ${res.status}: ${html}`);
      const field = (name: string) =>
        new RegExp(`name="${name}" value="([^"]*)"`)
          .exec(html)?.[1]
          ?.replaceAll('&quot;', '"')
          .replaceAll('&amp;', '&');
      return {
        action: /action="([^"]*)"/.exec(html)![1]!.replaceAll('&amp;', '&'),
        SAMLResponse: field('SAMLResponse')!,
        RelayState: field('RelayState'),
      };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  idp.metadataXml = idpMetadataXml(idp.entityId, idp.ssoUrl, key.certBody);
  return idp;
}

/** An IdP's SAML metadata: entity id, HTTP-Redirect (and POST) SSO URL, signing certificate. */
export function idpMetadataXml(entityId: string, ssoUrl: string, certBody: string): string {
  return (
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${esc(entityId)}">` +
    `<md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="${SAMLP}">` +
    `<md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data>` +
    `<ds:X509Certificate>${certBody}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>` +
    `<md:NameIDFormat>urn:oasis:names:tc:SAML:2.0:nameid-format:persistent</md:NameIDFormat>` +
    `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${esc(ssoUrl)}"/>` +
    `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${esc(ssoUrl)}"/>` +
    `</md:IDPSSODescriptor></md:EntityDescriptor>`
  );
}
