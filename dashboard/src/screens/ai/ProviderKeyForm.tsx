// The provider key of the AI gateway: shown only masked, replaced by typing a new one.
import { Button, Group, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useApi } from '../../api/context';
import { ErrorState, Loading } from '../../shell/states';
import { ActionError } from '../../ui/ActionError';
import { jsonInit } from '../../ui/json';
import { aiKey, type GatewayConfig } from './types';

export function ProviderKeyForm() {
  const api = useApi();
  const queries = useQueryClient();
  const config = useQuery({ queryKey: [...aiKey, 'config'], queryFn: () => api.json<GatewayConfig>('/api/ai/config') });
  const [apiKey, setApiKey] = useState('');
  const save = useMutation({
    mutationFn: () => api.json<GatewayConfig>('/api/ai/config', jsonInit('PUT', { apiKey })),
    onSuccess: () => {
      setApiKey('');
      return queries.invalidateQueries({ queryKey: aiKey });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <section aria-label="Provider key">
      <Title order={2} size="h4" mb="xs">
        Provider key
      </Title>
      {config.isPending ? <Loading what="the provider key" /> : null}
      {config.isError ? <ErrorState error={config.error} what="the provider key" /> : null}
      {config.data ? (
        <Text size="sm" mb="xs" role="status">
          {config.data.apiKey.configured ? `Key set: ${config.data.apiKey.maskedKey}` : 'No provider key set.'}
        </Text>
      ) : null}
      <form onSubmit={submit}>
        <Stack gap="xs">
          <Group align="flex-end" wrap="wrap">
            <PasswordInput
              label="New provider API key"
              description="Write-only: it is never shown again"
              autoComplete="off"
              required
              value={apiKey}
              onChange={(e) => setApiKey(e.currentTarget.value)}
              miw={260}
            />
            <Button type="submit" loading={save.isPending}>
              Save key
            </Button>
          </Group>
          <ActionError error={save.error} title="Could not save the key" />
        </Stack>
      </form>
    </section>
  );
}
