// Sends the user a password reset email (code or link, as the auth settings say); a link needs a
// redirect from the allowlist, chosen here.
import { Button, Group, Select, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { ActionResult } from '../../ui/ActionResult';
import { type AuthConfig, authSettingsApi } from '../auth-settings/auth-settings-api';
import { usersApi } from './users-api';

export function ResetEmailForm({ email }: { email: string }) {
  const client = useApi();
  const api = usersApi(client);
  const config = useQuery<AuthConfig>({ queryKey: ['auth-config'], queryFn: () => authSettingsApi(client).config() });
  const [redirectTo, setRedirectTo] = useState<string | null>(null);
  const byLink = config.data?.resetPasswordMethod === 'link';
  const send = useMutation({ mutationFn: () => api.sendReset(email, byLink ? (redirectTo ?? undefined) : undefined) });

  return (
    <Stack component="section" aria-labelledby="reset-heading">
      <Title order={2} size="h3" id="reset-heading">
        Password reset
      </Title>
      <Text size="sm">
        Emails {email} a password reset {byLink ? 'link' : 'code'} (Auth settings choose which).
      </Text>
      {byLink ? (
        <Select
          label="Where the link leads"
          data={config.data?.allowedRedirectUrls ?? []}
          value={redirectTo}
          onChange={setRedirectTo}
          placeholder={
            config.data?.allowedRedirectUrls.length ? 'Pick an allowed redirect' : 'Add one in Auth settings'
          }
        />
      ) : null}
      <Group>
        <Button onClick={() => send.mutate()} loading={send.isPending} disabled={byLink && !redirectTo}>
          Send password reset email
        </Button>
      </Group>
      <ActionResult error={send.error} success={send.isSuccess ? `A reset email is on its way to ${email}.` : null} />
    </Stack>
  );
}
