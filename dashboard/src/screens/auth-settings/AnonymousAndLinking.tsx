// Anonymous sign-in (off by default) and how long inactive anonymous users are kept, and whether
// an OAuth sign-in whose verified email matches an existing account links to it.
import { Button, Group, NumberInput, Paper, Stack, Switch } from '@mantine/core';
import { useEffect, useState } from 'react';
import { ErrorState, Loading } from '../../shell/states';
import { ActionResult } from '../../ui/ActionResult';
import { onSubmit } from '../../ui/on-submit';
import type { AuthConfig } from './auth-settings-api';
import { useAuthConfig } from './use-auth-config';

type Fields = Pick<AuthConfig, 'anonymousSignInsEnabled' | 'anonymousRetentionDays' | 'linkOAuthByEmail'>;

export function AnonymousAndLinking() {
  const { config, save } = useAuthConfig();
  const [draft, setDraft] = useState<Fields | null>(null);
  useEffect(() => {
    if (config.data) {
      const { anonymousSignInsEnabled, anonymousRetentionDays, linkOAuthByEmail } = config.data;
      setDraft({ anonymousSignInsEnabled, anonymousRetentionDays, linkOAuthByEmail });
    }
  }, [config.data]);
  if (config.isPending) return <Loading what="auth settings" />;
  if (config.isError) return <ErrorState error={config.error} what="auth settings" />;
  if (!draft) return null;

  return (
    <Paper withBorder p="md" component="form" onSubmit={onSubmit(() => save.mutate(draft))}>
      <Stack>
        <Switch
          label="Allow anonymous sign-in"
          description="Visitors get a user with no email; they keep it by adding an email or linking a provider"
          checked={draft.anonymousSignInsEnabled}
          onChange={(e) => setDraft({ ...draft, anonymousSignInsEnabled: e.currentTarget.checked })}
        />
        <NumberInput
          label="Remove inactive anonymous users after (days)"
          description="A job removes them and their sessions every hour; your tables' foreign keys decide their rows"
          min={1}
          max={3650}
          value={draft.anonymousRetentionDays}
          onChange={(v) => setDraft({ ...draft, anonymousRetentionDays: typeof v === 'number' ? v : Number(v) || 1 })}
        />
        <Switch
          label="Link OAuth sign-ins to the account with the same verified email"
          description="Off: such a sign-in is refused; the user signs in first and links the provider"
          checked={draft.linkOAuthByEmail}
          onChange={(e) => setDraft({ ...draft, linkOAuthByEmail: e.currentTarget.checked })}
        />
        <ActionResult error={save.error} success={save.isSuccess ? 'Settings saved.' : null} />
        <Group>
          <Button type="submit" loading={save.isPending}>
            Save settings
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
