// Auth settings: sign-up and password policy, redirect allowlist, OAuth providers, SMTP with a
// test email, and email templates with a preview; one tab each.
import { Stack, Tabs, Title } from '@mantine/core';
import { EmailTemplates } from './EmailTemplates';
import { GeneralSettings } from './GeneralSettings';
import { OAuthProviders } from './OAuthProviders';
import { RedirectAllowlist } from './RedirectAllowlist';
import { SmtpSettings } from './SmtpSettings';

export default function AuthSettingsScreen() {
  return (
    <Stack>
      <Title order={1} size="h2">
        Auth settings
      </Title>
      <Tabs defaultValue="general" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="general">Sign-up and passwords</Tabs.Tab>
          <Tabs.Tab value="redirects">Redirects</Tabs.Tab>
          <Tabs.Tab value="oauth">OAuth providers</Tabs.Tab>
          <Tabs.Tab value="smtp">SMTP</Tabs.Tab>
          <Tabs.Tab value="templates">Email templates</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="general" pt="md">
          <GeneralSettings />
        </Tabs.Panel>
        <Tabs.Panel value="redirects" pt="md">
          <RedirectAllowlist />
        </Tabs.Panel>
        <Tabs.Panel value="oauth" pt="md">
          <OAuthProviders />
        </Tabs.Panel>
        <Tabs.Panel value="smtp" pt="md">
          <SmtpSettings />
        </Tabs.Panel>
        <Tabs.Panel value="templates" pt="md">
          <EmailTemplates />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
