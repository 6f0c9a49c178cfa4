// The admin's SAML identity providers: registered from metadata (fetched from a URL under the
// outbound address policy, or given as XML), with the email domains each serves (a domain belongs
// to one provider) and the attribute mapping. Each change is one transaction.
import { X509Certificate } from 'node:crypto';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import { OutboundRefused } from '../../core/address-policy.js';
import { allowedOutboundOrigins, assertOutboundUrl, outboundFetcher } from '../../platform/outbound-http.js';
import { MAX_METADATA_BYTES, parseIdpMetadata, type IdpMetadata } from './idp-metadata.js';
import * as repo from './sso.repo.js';
import type { ProviderCreate, ProviderUpdate } from './sso.schemas.js';

const METADATA_TIMEOUT_MS = 10_000;
/** What a provider maps when the admin gives no mapping: the usual email and name attributes. */
export const DEFAULT_MAPPING: repo.ProviderRow['attributeMapping'] = {
  keys: {
    email: {
      names: [
        'email',
        'mail',
        'urn:oid:0.9.2342.19200300.100.1.3',
        'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
      ],
    },
    name: {
      names: [
        'name',
        'displayName',
        'urn:oid:2.16.840.1.113730.3.1.241',
        'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name',
      ],
    },
  },
};

export const providerNotFound = () =>
  new AppError('NOT_FOUND', 'SSO provider not found.', {
    nextActions: 'List the providers: GET /api/auth/sso/providers.',
  });

export function toWire(row: repo.ProviderRow) {
  return {
    id: row.id,
    type: 'saml' as const,
    name: row.name,
    saml: {
      entityId: row.entityId,
      ssoUrl: row.ssoUrl,
      metadataUrl: row.metadataUrl,
      metadataXml: row.metadataXml,
      attributeMapping: row.attributeMapping,
    },
    domains: row.domains.map((domain) => ({ domain })),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export type SsoProvidersService = ReturnType<typeof createSsoProvidersService>;

export function createSsoProvidersService(deps: Pick<Deps, 'sql' | 'clock' | 'config'>) {
  const allowed = allowedOutboundOrigins(deps.config);
  const fetchOutbound = outboundFetcher(allowed);

  async function fetchMetadata(url: string): Promise<string> {
    assertOutboundUrl(url, 'metadataUrl', allowed);
    const failed = (why: string) =>
      new AppError('VALIDATION_ERROR', `metadataUrl: ${why}`, {
        details: [{ path: 'metadataUrl', message: why }],
        nextActions: 'Check the URL, or paste the metadata as metadataXml.',
      });
    let res: Response;
    try {
      res = await fetchOutbound(url, { redirect: 'error', signal: AbortSignal.timeout(METADATA_TIMEOUT_MS) });
    } catch (err) {
      if (err instanceof OutboundRefused) {
        throw failed(`${err.message} (the operator can allow its origin in OUTBOUND_ALLOWED_ORIGINS).`);
      }
      throw failed(`the metadata could not be fetched (${(err as Error).message}).`);
    }
    if (!res.ok) throw failed(`the metadata URL answered ${res.status}.`);
    const length = Number(res.headers.get('content-length') ?? 0);
    if (length > MAX_METADATA_BYTES) throw failed('the metadata is larger than 256 KiB.');
    const text = await res.text();
    if (Buffer.byteLength(text) > MAX_METADATA_BYTES) throw failed('the metadata is larger than 256 KiB.');
    return text;
  }

  async function readMetadata(input: { metadataUrl?: string; metadataXml?: string }) {
    const xml = input.metadataUrl !== undefined ? await fetchMetadata(input.metadataUrl) : input.metadataXml!;
    const metadata = parseIdpMetadata(xml);
    assertCertificates(metadata);
    return { xml, metadata };
  }

  async function saveDomains(tx: Parameters<typeof repo.replaceDomains>[0], id: string, domains: string[]) {
    const taken = await repo.replaceDomains(tx, id, [...new Set(domains)], deps.clock.now());
    if (taken.length > 0) {
      throw new AppError('CONFLICT', `Another SSO provider already serves ${taken.join(', ')}.`, {
        details: taken.map((domain) => ({ path: 'domains', message: `${domain} belongs to another provider` })),
        nextActions: 'Remove the domain from the other provider first; a domain belongs to one provider.',
      });
    }
  }

  return {
    async list() {
      const rows = await repo.listProviders(deps.sql);
      return { data: rows.map(toWire), count: rows.length };
    },

    async get(id: string) {
      const row = await repo.findProvider(deps.sql, id);
      if (!row) throw providerNotFound();
      return toWire(row);
    },

    async create(input: ProviderCreate) {
      const { xml, metadata } = await readMetadata(input);
      const id = await deps.sql.begin(async (tx) => {
        const id = await repo.insertProvider(
          tx,
          {
            name: input.name ?? null,
            ...metadata,
            metadataXml: xml,
            metadataUrl: input.metadataUrl ?? null,
            attributeMapping: input.attributeMapping ?? DEFAULT_MAPPING,
          },
          deps.clock.now(),
        );
        if (!id) throw entityTaken(metadata.entityId);
        await saveDomains(tx, id, input.domains);
        return id;
      });
      return this.get(id);
    },

    async update(id: string, input: ProviderUpdate) {
      const fresh =
        input.metadataUrl !== undefined || input.metadataXml !== undefined ? await readMetadata(input) : null;
      await deps.sql.begin(async (tx) => {
        const row = await repo.findProvider(tx, id);
        if (!row) throw providerNotFound();
        // Identities are linked as sso:<id> + the IdP's subject: another IdP's subjects must not
        // inherit them, so the entity id stays what it was.
        if (fresh && fresh.metadata.entityId !== row.entityId) {
          throw new AppError(
            'VALIDATION_ERROR',
            `The metadata is for ${fresh.metadata.entityId}, not ${row.entityId}.`,
            {
              details: [{ path: 'metadataXml', message: 'entityID differs from the registered provider' }],
              nextActions: 'Register a different identity provider as a new provider.',
            },
          );
        }
        await repo.updateProvider(
          tx,
          id,
          {
            name: input.name === undefined ? row.name : input.name,
            entityId: row.entityId,
            ssoUrl: fresh?.metadata.ssoUrl ?? row.ssoUrl,
            certificates: fresh?.metadata.certificates ?? row.certificates,
            metadataXml: fresh?.xml ?? row.metadataXml,
            metadataUrl: fresh ? (input.metadataUrl ?? null) : row.metadataUrl,
            attributeMapping: input.attributeMapping ?? row.attributeMapping,
          },
          deps.clock.now(),
        );
        if (input.domains) await saveDomains(tx, id, input.domains);
      });
      return this.get(id);
    },

    async remove(id: string) {
      const row = await repo.findProvider(deps.sql, id);
      if (!row || !(await repo.deleteProvider(deps.sql, id))) throw providerNotFound();
      return toWire(row);
    },
  };
}

function assertCertificates(metadata: IdpMetadata) {
  for (const cert of metadata.certificates) {
    try {
      new X509Certificate(Buffer.from(cert, 'base64'));
    } catch {
      throw new AppError('VALIDATION_ERROR', 'metadataXml: a signing certificate is not a valid X.509 certificate.', {
        details: [{ path: 'metadataXml', message: 'X509Certificate does not parse' }],
        nextActions: "Give the identity provider's metadata as it publishes it.",
      });
    }
  }
}

const entityTaken = (entityId: string) =>
  new AppError('CONFLICT', `An SSO provider with entity id ${entityId} is already registered.`, {
    nextActions: 'Update that provider instead (PUT /api/auth/sso/providers/:id).',
  });
