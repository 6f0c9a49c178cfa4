// Reads an identity provider's SAML metadata (an EntityDescriptor with an IDPSSODescriptor): its
// entity id, the single sign-on URL for the HTTP-Redirect binding and its signing certificates.
// Anything else in the document is ignored; a document without these is refused with a clear 400.
import { DOMParser } from '@xmldom/xmldom';
import { AppError } from '../../core/errors.js';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
/** Metadata larger than this is refused (a real IdP's is a few kilobytes). */
export const MAX_METADATA_BYTES = 256 * 1024;

export interface IdpMetadata {
  entityId: string;
  ssoUrl: string;
  /** Base64 DER bodies of the signing certificates (no PEM armour, no whitespace). */
  certificates: string[];
}

const invalid = (why: string) =>
  new AppError('VALIDATION_ERROR', `metadataXml: ${why}`, {
    details: [{ path: 'metadataXml', message: why }],
    nextActions: "Give the identity provider's SAML 2.0 metadata (an EntityDescriptor with an IDPSSODescriptor).",
  });

type El = {
  getAttribute(name: string): string | null;
  getElementsByTagNameNS(ns: string, name: string): ArrayLike<El>;
  textContent: string | null;
};
const all = (el: El, ns: string, name: string): El[] => Array.from(el.getElementsByTagNameNS(ns, name));

export function parseIdpMetadata(xml: string): IdpMetadata {
  if (Buffer.byteLength(xml) > MAX_METADATA_BYTES) throw invalid('the document is larger than 256 KiB.');
  const problems: string[] = [];
  const doc = new DOMParser({
    errorHandler: (level: string, message: string) => {
      if (level !== 'warning') problems.push(message);
    },
  }).parseFromString(xml, 'text/xml');
  const root = doc?.documentElement as unknown as (El & { localName: string; namespaceURI: string | null }) | null;
  if (problems.length > 0 || !root) throw invalid('the document is not well-formed XML.');
  if (root.localName !== 'EntityDescriptor' || root.namespaceURI !== MD) {
    throw invalid('the root element is not a SAML 2.0 md:EntityDescriptor.');
  }
  const entityId = root.getAttribute('entityID')?.trim();
  if (!entityId) throw invalid('the EntityDescriptor has no entityID.');
  const [idp] = all(root, MD, 'IDPSSODescriptor');
  if (!idp) throw invalid('there is no IDPSSODescriptor: this is not an identity provider.');
  const sso = all(idp, MD, 'SingleSignOnService').find((s) => s.getAttribute('Binding') === REDIRECT_BINDING);
  const ssoUrl = sso?.getAttribute('Location')?.trim();
  if (!ssoUrl) throw invalid('there is no SingleSignOnService with the HTTP-Redirect binding.');
  try {
    const parsed = new URL(ssoUrl);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new Error('scheme');
  } catch {
    throw invalid('the SingleSignOnService Location is not an http(s) URL.');
  }
  const certificates = all(idp, MD, 'KeyDescriptor')
    .filter((k) => (k.getAttribute('use') ?? 'signing') === 'signing')
    .flatMap((k) => all(k, DS, 'X509Certificate'))
    .map((c) => (c.textContent ?? '').replace(/\s+/g, ''))
    .filter((c) => c.length > 0);
  if (certificates.length === 0) throw invalid('there is no signing certificate (KeyDescriptor use="signing").');
  return { entityId, ssoUrl, certificates: [...new Set(certificates)] };
}
