// The checks Plinth makes itself on an assertion whose signature node-saml verified: the issuer is
// the registered IdP, the bearer confirmation is for this ACS and this flow's AuthnRequest, the
// time bounds hold by the injected clock (node-saml reads the wall clock, so its own time checks
// are off), and the Response's Destination, when present, is this ACS. Also reads the subject and
// mapped attributes.
import { DOMParser } from '@xmldom/xmldom';
import type { Profile } from '@node-saml/node-saml';
import { AppError } from '../../core/errors.js';
import type { ProviderRow } from './sso.repo.js';

/** How far the IdP's clock may be from ours. */
export const CLOCK_SKEW_MS = 60_000;
const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

export const refused = (why: string) =>
  new AppError('VALIDATION_ERROR', `The SAML response was refused: ${why}`, {
    nextActions:
      'Start the sign-in again from the app; if it keeps failing, the admin should check the identity provider settings.',
  });

// xml2js's shape of the verified assertion: elements as arrays, attributes under $, text under _.
type Node = { $?: Record<string, string>; _?: string } & Record<string, unknown>;
const children = (node: Node | undefined, name: string): Node[] => (node?.[name] as Node[] | undefined) ?? [];
const text = (node: Node | undefined): string | undefined =>
  typeof node === 'string' ? node : typeof node?._ === 'string' ? node._ : undefined;

function instant(value: string | undefined, what: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw refused(`${what} is not a timestamp.`);
  return ms;
}

export interface CheckedAssertion {
  assertionId: string;
  /** When the assertion stops being usable: its id is remembered until then. */
  expiresAt: Date;
  nameId: string;
  nameIdFormat: string | undefined;
  attributes: Record<string, unknown>;
}

export function checkAssertion(
  profile: Profile,
  expected: { provider: ProviderRow; acsUrl: string; requestId: string; now: Date },
): CheckedAssertion {
  const assertion = (profile.getAssertion?.() as { Assertion?: Node } | undefined)?.Assertion;
  if (!assertion) throw refused('no signed assertion.');
  const assertionId = assertion.$?.ID;
  if (!assertionId) throw refused('the assertion has no ID.');
  const issuer = text(children(assertion, 'Issuer')[0]);
  if (issuer !== expected.provider.entityId)
    throw refused(`the assertion was issued by ${issuer ?? 'nobody'}, not ${expected.provider.entityId}.`);

  const now = expected.now.getTime();
  const conditions = children(assertion, 'Conditions')[0];
  const notBefore = instant(conditions?.$?.NotBefore, 'Conditions NotBefore');
  const conditionsEnd = instant(conditions?.$?.NotOnOrAfter, 'Conditions NotOnOrAfter');
  if (notBefore !== undefined && now + CLOCK_SKEW_MS < notBefore) throw refused('the assertion is not valid yet.');
  if (conditionsEnd !== undefined && now - CLOCK_SKEW_MS >= conditionsEnd) throw refused('the assertion has expired.');

  const subject = children(assertion, 'Subject')[0];
  const nameIdNode = children(subject, 'NameID')[0];
  const nameId = text(nameIdNode)?.trim();
  if (!nameId) throw refused('the assertion names no subject (NameID).');
  const bearer = children(subject, 'SubjectConfirmation').filter((c) => c.$?.Method === BEARER);
  if (bearer.length === 0) throw refused('the assertion has no bearer subject confirmation.');
  // SAML profiles §4.1.4.2: one bearer confirmation must be for this ACS, this request, and now.
  const reasons = new Set<string>();
  let confirmationEnd: number | undefined;
  for (const confirmation of bearer) {
    const data = children(confirmation, 'SubjectConfirmationData')[0]?.$ ?? {};
    const end = instant(data.NotOnOrAfter, 'SubjectConfirmationData NotOnOrAfter');
    if (data.Recipient !== expected.acsUrl)
      reasons.add(`the recipient is ${data.Recipient ?? 'missing'}, not ${expected.acsUrl}.`);
    else if (data.InResponseTo !== expected.requestId) reasons.add('the assertion answers another sign-in request.');
    else if (end === undefined) reasons.add('the subject confirmation has no NotOnOrAfter.');
    else if (now - CLOCK_SKEW_MS >= end) reasons.add('the assertion has expired.');
    else if (data.NotBefore !== undefined && now + CLOCK_SKEW_MS < (instant(data.NotBefore, 'NotBefore') ?? 0))
      reasons.add('the assertion is not valid yet.');
    else {
      confirmationEnd = end;
      break;
    }
  }
  if (confirmationEnd === undefined) throw refused([...reasons][0] ?? 'no usable subject confirmation.');

  const expiresAt = Math.min(confirmationEnd, conditionsEnd ?? confirmationEnd) + CLOCK_SKEW_MS;
  return {
    assertionId,
    expiresAt: new Date(expiresAt),
    nameId,
    nameIdFormat: nameIdNode?.$?.Format,
    attributes: (profile.attributes as Record<string, unknown> | undefined) ?? {},
  };
}

/** The unsigned envelope: when it names a Destination or InResponseTo, they must be ours. */
export function checkResponseEnvelope(samlResponse: string, expected: { acsUrl: string; requestId: string }) {
  const xml = Buffer.from(samlResponse, 'base64').toString('utf8');
  let root: { localName?: string; getAttribute(name: string): string | null } | null = null;
  try {
    const doc = new DOMParser({ errorHandler: { error: fail, fatalError: fail } }).parseFromString(xml, 'text/xml');
    root = doc?.documentElement ?? null;
  } catch {
    root = null;
  }
  if (root?.localName !== 'Response' || !root) throw refused('SAMLResponse is not a base64 SAML Response document.');
  const destination = root.getAttribute('Destination');
  if (destination && destination !== expected.acsUrl)
    throw refused(`the response is addressed to ${destination}, not ${expected.acsUrl}.`);
  const inResponseTo = root.getAttribute('InResponseTo');
  if (inResponseTo && inResponseTo !== expected.requestId)
    throw refused('the response answers another sign-in request.');
}

function fail(message: string): never {
  throw new Error(message);
}

/** The user's email and name by the provider's mapping (GoTrue's attribute_mapping.keys). */
export function mapAttributes(checked: CheckedAssertion, mapping: ProviderRow['attributeMapping']) {
  const pick = (key: string): string | undefined => {
    const rule = mapping.keys[key];
    if (!rule) return undefined;
    for (const name of [...(rule.name ? [rule.name] : []), ...(rule.names ?? [])]) {
      const value = checked.attributes[name];
      const first = Array.isArray(value) ? value[0] : value;
      if (typeof first === 'string' && first.trim() !== '') return first.trim();
    }
    return rule.default === undefined ? undefined : String(rule.default);
  };
  const mapped = Object.fromEntries(Object.keys(mapping.keys).map((key) => [key, pick(key)]));
  const email = mapped.email ?? (checked.nameIdFormat === EMAIL_FORMAT ? checked.nameId : undefined);
  return { email: email?.toLowerCase(), name: mapped.name, mapped };
}
