// The secrets screen's view of the API: secrets without values (values are write-only here),
// and rotation of the API key, the anon key and the access-token signing key with a grace period
// for the old one.
import type { ApiClient } from '../../api/client';
import { jsonBody } from '../../api/json-body';

export interface SecretMeta {
  id: string;
  key: string;
  isActive: boolean;
  isReserved: boolean;
  lastUsedAt: string | null;
  expiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export type RotatableKey = 'api' | 'anon' | 'signing';

export interface Rotation {
  /** The new API or anon key; for the signing key, its key id (the private key is never shown). */
  key: string;
  oldKeyExpiresAt: string;
}

export const ROTATIONS: Record<RotatableKey, { label: string; path: string; defaultHours: number; maxHours: number }> =
  {
    api: { label: 'API key', path: '/api/secrets/api-key/rotate', defaultHours: 24, maxHours: 168 },
    anon: { label: 'Anon key', path: '/api/secrets/anon-key/rotate', defaultHours: 168, maxHours: 720 },
    signing: { label: 'Signing key', path: '/api/secrets/signing-key/rotate', defaultHours: 24, maxHours: 168 },
  };

export const secretsApi = (api: ApiClient) => ({
  list: () => api.json<{ secrets: SecretMeta[] }>('/api/secrets'),
  create: (key: string, value: string) => api.json('/api/secrets', jsonBody('POST', { key, value })),
  update: (key: string, value: string) =>
    api.json(`/api/secrets/${encodeURIComponent(key)}`, jsonBody('PUT', { value })),
  remove: (key: string) => api.json(`/api/secrets/${encodeURIComponent(key)}`, jsonBody('DELETE')),
  async rotate(which: RotatableKey, gracePeriodHours: number): Promise<Rotation> {
    const answer = await api.json<{ apiKey?: string; anonKey?: string; keyId?: string; oldKeyExpiresAt: string }>(
      ROTATIONS[which].path,
      jsonBody('POST', { gracePeriodHours }),
    );
    return { key: (answer.apiKey ?? answer.anonKey ?? answer.keyId)!, oldKeyExpiresAt: answer.oldKeyExpiresAt };
  },
});
