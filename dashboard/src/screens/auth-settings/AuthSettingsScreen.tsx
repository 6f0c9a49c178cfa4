// Auth settings: sign-up and password policy, redirect allowlist, OAuth providers, SMTP with a
// test email, email templates with a preview, and the admin's own MFA; one tab each.
import { Stack, Tabs, Title } from '@mantine/core';
import { AdminMfaSettings } from './AdminMfaSettings';
import { AnonymousAndLinking } from './AnonymousAndLinking';
import { EmailTemplates } from './EmailTemplates';
import { GeneralSettings } from './GeneralSettings';
import { OAuthProviders } from './OAuthProviders';
import { PasskeySettings } from './PasskeySettings';
import { RedirectAllowlist } from './RedirectAllowlist';
import { SmtpSettings } from './SmtpSettings';
import { SsoProviders } from './SsoProviders';

const TABS = [
  { value: 'general', label: 'Sign-up and passwords', Panel: GeneralSettings },
  { value: 'redirects', label: 'Redirects', Panel: RedirectAllowlist },
  { value: 'oauth', label: 'OAuth providers', Panel: OAuthProviders },
  { value: 'sso', label: 'SSO (SAML)', Panel: SsoProviders },
  { value: 'smtp', label: 'SMTP', Panel: SmtpSettings },
  { value: 'templates', label: 'Email templates', Panel: EmailTemplates },
  { value: 'anonymous', label: 'Anonymous and linking', Panel: AnonymousAndLinking },
  { value: 'passkeys', label: 'Passkeys', Panel: PasskeySettings },
  { value: 'admin-mfa', label: 'Admin MFA', Panel: AdminMfaSettings },
];

export default function AuthSettingsScreen() {
  return (
    <Stack>
      <Title order={1} size="h2">
        Auth settings
      </Title>
      <Tabs defaultValue="general" keepMounted={false}>
        <Tabs.List>
          {TABS.map((tab) => (
            <Tabs.Tab key={tab.value} value={tab.value}>
              {tab.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {TABS.map(({ value, Panel }) => (
          <Tabs.Panel key={value} value={value} pt="md">
            <Panel />
          </Tabs.Panel>
        ))}
      </Tabs>
    </Stack>
  );
}
