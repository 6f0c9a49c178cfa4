// Auth settings: sign-up and password policy, redirect allowlist, OAuth providers, SAML SSO, SMTP
// with a test email, email templates with a preview, anonymous users and linking, passkeys, and the
// admin's own MFA; one tab each. /auth-settings/sso/test/{id} opens the SSO tab on a test sign-in's outcome.
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

const SSO_TEST = /^sso\/test\/([0-9a-f-]{36})$/;

export default function AuthSettingsScreen({ rest = '' }: { rest?: string }) {
  const ssoTestId = SSO_TEST.exec(rest)?.[1];
  return (
    <Stack>
      <Title order={1} size="h2">
        Auth settings
      </Title>
      <Tabs defaultValue={ssoTestId ? 'sso' : 'general'} keepMounted={false}>
        <Tabs.List>
          {TABS.map((tab) => (
            <Tabs.Tab key={tab.value} value={tab.value}>
              {tab.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {TABS.map(({ value, Panel }) => (
          <Tabs.Panel key={value} value={value} pt="md">
            {value === 'sso' ? <SsoProviders testId={ssoTestId} /> : <Panel />}
          </Tabs.Panel>
        ))}
      </Tabs>
    </Stack>
  );
}
