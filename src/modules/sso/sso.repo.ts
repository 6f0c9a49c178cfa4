// SQL of SAML single sign-on: identity providers and their domains, sign-in flows in progress and
// the assertion ids already spent.
import type { Queryable } from '../../core/db.js';
import { jsonText } from '../../core/json-guard.js';

export interface ProviderRow {
  id: string;
  name: string | null;
  entityId: string;
  ssoUrl: string;
  certificates: string[];
  metadataXml: string;
  metadataUrl: string | null;
  attributeMapping: { keys: Record<string, { name?: string; names?: string[]; default?: unknown }> };
  domains: string[];
  createdAt: Date;
  updatedAt: Date;
}

export interface ProviderFields {
  name: string | null;
  entityId: string;
  ssoUrl: string;
  certificates: string[];
  metadataXml: string;
  metadataUrl: string | null;
  attributeMapping: ProviderRow['attributeMapping'];
}

const providerColumns = (db: Queryable) => db`
  p.id, p.name, p.entity_id as "entityId", p.sso_url as "ssoUrl", p.certificates,
  p.metadata_xml as "metadataXml", p.metadata_url as "metadataUrl",
  p.attribute_mapping as "attributeMapping", p.created_at as "createdAt", p.updated_at as "updatedAt",
  array(select d.domain from auth.saml_domains d where d.provider_id = p.id order by d.domain) as domains`;

export async function listProviders(db: Queryable) {
  return db<ProviderRow[]>`select ${providerColumns(db)} from auth.saml_providers p order by p.created_at, p.id`;
}

export async function findProvider(db: Queryable, id: string) {
  const [row] = await db<ProviderRow[]>`select ${providerColumns(db)} from auth.saml_providers p where p.id = ${id}`;
  return row;
}

export async function findProviderByDomain(db: Queryable, domain: string) {
  const [row] = await db<ProviderRow[]>`
    select ${providerColumns(db)} from auth.saml_providers p
    join auth.saml_domains d on d.provider_id = p.id where d.domain = ${domain}`;
  return row;
}

/** The new provider's id; undefined when another provider has the same entity id. */
export async function insertProvider(db: Queryable, p: ProviderFields, now: Date) {
  const [row] = await db<{ id: string }[]>`
    insert into auth.saml_providers
      (name, entity_id, sso_url, certificates, metadata_xml, metadata_url, attribute_mapping, created_at, updated_at)
    values (${p.name}, ${p.entityId}, ${p.ssoUrl}, ${p.certificates}, ${p.metadataXml}, ${p.metadataUrl},
      ${jsonText(p.attributeMapping)}::text::jsonb, ${now}, ${now})
    on conflict (entity_id) do nothing
    returning id`;
  return row?.id;
}

export async function updateProvider(db: Queryable, id: string, p: ProviderFields, now: Date) {
  await db`
    update auth.saml_providers set name = ${p.name}, entity_id = ${p.entityId}, sso_url = ${p.ssoUrl},
      certificates = ${p.certificates}, metadata_xml = ${p.metadataXml}, metadata_url = ${p.metadataUrl},
      attribute_mapping = ${jsonText(p.attributeMapping)}::text::jsonb, updated_at = ${now}
    where id = ${id}`;
}

export async function deleteProvider(db: Queryable, id: string) {
  const rows = await db`delete from auth.saml_providers where id = ${id} returning id`;
  return rows.length > 0;
}

/** Replaces a provider's domains; the domains another provider already serves are returned (nothing written then). */
export async function replaceDomains(db: Queryable, providerId: string, domains: string[], now: Date) {
  const taken = await db<{ domain: string }[]>`
    select domain from auth.saml_domains where domain = any(${domains}) and provider_id <> ${providerId}
    order by domain`;
  if (taken.length > 0) return taken.map((t) => t.domain);
  await db`delete from auth.saml_domains where provider_id = ${providerId} and domain <> all(${domains})`;
  if (domains.length > 0) {
    await db`
      insert into auth.saml_domains (domain, provider_id, created_at)
      select unnest(${domains}::text[]), ${providerId}, ${now}
      on conflict (domain) do nothing`;
  }
  return [];
}

export async function insertFlow(
  db: Queryable,
  f: {
    id: string;
    providerId: string;
    requestId: string;
    redirectUri: string;
    /** Null for a test sign-in (nobody signs in, nothing to exchange). */
    codeChallenge: string | null;
    wire: 'supabase' | null;
    purpose: FlowPurpose;
    now: Date;
    expiresAt: Date;
  },
) {
  await db`
    insert into auth.saml_flows
      (id, provider_id, request_id, redirect_uri, code_challenge, wire, purpose, created_at, expires_at)
    values (${f.id}, ${f.providerId}, ${f.requestId}, ${f.redirectUri}, ${f.codeChallenge}, ${f.wire}, ${f.purpose},
      ${f.now}, ${f.expiresAt})`;
}

/** 'sign-in': an app's user signs in; 'test': the admin tries the provider from the console. */
export type FlowPurpose = 'sign-in' | 'test';

export interface FlowRow {
  id: string;
  providerId: string;
  requestId: string;
  redirectUri: string;
  codeChallenge: string | null;
  /** The wire the sign-in started on ('supabase': /auth/v1/sso), null for Plinth's own. */
  wire: 'supabase' | null;
  purpose: FlowPurpose;
}

const flowColumns = (db: Queryable) => db`
  id, provider_id as "providerId", request_id as "requestId", redirect_uri as "redirectUri",
  code_challenge as "codeChallenge", wire, purpose`;

/** A flow not expired yet (spent or not: a replayed answer is told apart by its assertion id). */
export async function findLiveFlow(db: Queryable, id: string, now: Date) {
  const [row] = await db<FlowRow[]>`
    select ${flowColumns(db)} from auth.saml_flows where id = ${id} and expires_at > ${now}`;
  return row;
}

/** Spends a flow once; undefined when it was spent (or expired) meanwhile. */
export async function consumeFlow(db: Queryable, id: string, now: Date) {
  const [row] = await db<FlowRow[]>`
    update auth.saml_flows set consumed_at = ${now}
    where id = ${id} and consumed_at is null and expires_at > ${now}
    returning ${flowColumns(db)}`;
  return row;
}

/** Spends a test flow once, keeping its outcome; false when it was spent (or expired) meanwhile. */
export async function recordTestResult(db: Queryable, id: string, result: unknown, now: Date): Promise<boolean> {
  const rows = await db`
    update auth.saml_flows set consumed_at = ${now}, test_result = ${db.json(result as never)}
    where id = ${id} and purpose = 'test' and consumed_at is null and expires_at > ${now}
    returning id`;
  return rows.length > 0;
}

export interface TestFlowRow {
  providerId: string;
  result: Record<string, unknown> | null;
}

/** A test flow not expired yet, with its outcome once the identity provider answered. */
export async function findTestFlow(db: Queryable, id: string, now: Date) {
  const [row] = await db<TestFlowRow[]>`
    select provider_id as "providerId", test_result as result from auth.saml_flows
    where id = ${id} and purpose = 'test' and expires_at > ${now}`;
  return row;
}

export async function assertionSeen(db: Queryable, providerId: string, assertionId: string) {
  const [row] = await db`
    select 1 from auth.saml_assertions where provider_id = ${providerId} and assertion_id = ${assertionId}`;
  return row !== undefined;
}

/** Remembers an assertion id until it expires; false when it was already spent. */
export async function rememberAssertion(db: Queryable, providerId: string, assertionId: string, expiresAt: Date) {
  const rows = await db`
    insert into auth.saml_assertions (provider_id, assertion_id, expires_at)
    values (${providerId}, ${assertionId}, ${expiresAt})
    on conflict do nothing returning 1`;
  return rows.length > 0;
}

/** Drops spent assertion ids and flows past their expiry (a bounded batch, on each sign-in). */
export async function pruneExpired(db: Queryable, now: Date) {
  await db`
    delete from auth.saml_assertions where ctid in (
      select ctid from auth.saml_assertions where expires_at <= ${now} limit 100 for update skip locked)`;
  await db`
    delete from auth.saml_flows where ctid in (
      select ctid from auth.saml_flows where expires_at <= ${now} limit 100 for update skip locked)`;
}
