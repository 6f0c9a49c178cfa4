// The admin MFA part of the auth settings screen's view of the API: the project admin's own TOTP
// factors (the secret comes back once, at enrollment) and the "require MFA for the admin" setting.
import type { ApiClient } from '../../api/client';
import { jsonBody } from '../../api/json-body';

export interface AdminFactor {
  id: string;
  type: 'totp';
  friendlyName: string;
  status: 'unverified' | 'verified';
  createdAt: string;
  updatedAt: string;
}

export interface EnrolledFactor extends AdminFactor {
  totp: { secret: string; uri: string; qrCode: string };
}

export interface MfaSettings {
  requireAdminMfa: boolean;
}

export const adminMfaApi = (api: ApiClient) => ({
  settings: () => api.json<MfaSettings>('/api/auth/mfa/settings'),
  updateSettings: (requireAdminMfa: boolean) =>
    api.json<MfaSettings>('/api/auth/mfa/settings', jsonBody('PUT', { requireAdminMfa })),
  factors: () => api.json<{ data: AdminFactor[] }>('/api/auth/admin/mfa/factors'),
  enroll: (friendlyName: string) =>
    api.json<EnrolledFactor>('/api/auth/admin/mfa/factors', jsonBody('POST', friendlyName ? { friendlyName } : {})),
  verify: (factorId: string, totpCode: string) =>
    api.json<AdminFactor>(`/api/auth/admin/mfa/factors/${factorId}/verify`, jsonBody('POST', { totpCode })),
  remove: (factorId: string) => api.json(`/api/auth/admin/mfa/factors/${factorId}`, jsonBody('DELETE')),
});
