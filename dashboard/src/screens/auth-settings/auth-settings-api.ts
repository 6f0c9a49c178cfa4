// The auth settings screen's view of the API: the auth configuration, OAuth providers (secrets
// write-only: only whether one is set comes back), SMTP (password write-only) and templates.
import type { ApiClient } from '../../api/client';
import { jsonBody } from '../../api/json-body';

export interface AuthConfig {
  requireEmailVerification: boolean;
  passwordMinLength: number;
  requireNumber: boolean;
  requireLowercase: boolean;
  requireUppercase: boolean;
  requireSpecialChar: boolean;
  verifyEmailMethod: 'code' | 'link';
  resetPasswordMethod: 'code' | 'link';
  allowedRedirectUrls: string[];
  disableSignup: boolean;
  anonymousSignInsEnabled: boolean;
  anonymousRetentionDays: number;
  linkOAuthByEmail: boolean;
}

export interface BuiltInProviderConfig {
  provider: string;
  clientId: string;
  hasClientSecret: boolean;
  scopes: string[] | null;
  redirectUri: string | null;
}

export interface CustomProviderConfig {
  key: string;
  name: string;
  discoveryEndpoint: string;
  clientId: string;
  hasClientSecret: boolean;
  scopes: string[] | null;
}

export interface SmtpConfig {
  enabled: boolean;
  host: string;
  port: number;
  secure: boolean;
  username: string;
  hasPassword: boolean;
  senderEmail: string;
  senderName: string;
  source: 'api' | 'environment' | 'log';
}

export interface EmailTemplate {
  type: string;
  subject: string;
  bodyHtml: string;
  isDefault: boolean;
}

// The server's own list (a plain constant module), so the two never drift apart.
export { BUILT_IN_PROVIDERS } from '../../../../src/modules/oauth/providers';

export const authSettingsApi = (api: ApiClient) => ({
  config: () => api.json<AuthConfig>('/api/auth/config'),
  updateConfig: (changes: Partial<AuthConfig>) => api.json<AuthConfig>('/api/auth/config', jsonBody('PUT', changes)),

  providers: () => api.json<{ data: BuiltInProviderConfig[] }>('/api/auth/oauth/configs'),
  createProvider: (body: Record<string, unknown>) => api.json('/api/auth/oauth/configs', jsonBody('POST', body)),
  updateProvider: (provider: string, body: Record<string, unknown>) =>
    api.json(`/api/auth/oauth/${provider}/config`, jsonBody('PUT', body)),
  removeProvider: (provider: string) => api.json(`/api/auth/oauth/${provider}/config`, jsonBody('DELETE')),

  customProviders: () => api.json<{ data: CustomProviderConfig[] }>('/api/auth/oauth/custom/configs'),
  createCustom: (body: Record<string, unknown>) => api.json('/api/auth/oauth/custom/configs', jsonBody('POST', body)),
  updateCustom: (key: string, body: Record<string, unknown>) =>
    api.json(`/api/auth/oauth/custom/${key}/config`, jsonBody('PUT', body)),
  removeCustom: (key: string) => api.json(`/api/auth/oauth/custom/${key}/config`, jsonBody('DELETE')),

  smtp: () => api.json<SmtpConfig>('/api/auth/smtp-config'),
  updateSmtp: (body: Record<string, unknown>) => api.json<SmtpConfig>('/api/auth/smtp-config', jsonBody('PUT', body)),
  sendTestEmail: (to: string) => api.json<{ message: string }>('/api/auth/smtp-config/test', jsonBody('POST', { to })),

  templates: () => api.json<{ data: EmailTemplate[] }>('/api/auth/email-templates'),
  saveTemplate: (type: string, body: { subject: string; bodyHtml: string }) =>
    api.json<EmailTemplate>(`/api/auth/email-templates/${type}`, jsonBody('PUT', body)),
  previewTemplate: (type: string, body: { subject: string; bodyHtml: string }) =>
    api.json<{ subject: string; html: string; text: string }>(
      `/api/auth/email-templates/${type}/preview`,
      jsonBody('POST', body),
    ),
});
