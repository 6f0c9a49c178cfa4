// The model allow-list: users may call only these models (none listed: AI is off for users; the
// admin may call any). The provider's catalogue is offered as suggestions when it can be read,
// and asked for only once a provider key is set (without one, the provider is not in use yet).
import { Button, Group, Stack, TagsInput, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useApi } from '../../api/context';
import { ErrorState, Loading } from '../../shell/states';
import { ActionError } from '../../ui/ActionError';
import { jsonInit } from '../../ui/json';
import { type AiSettings, aiKey, type CatalogModel } from './types';

export function AllowedModels({ configured }: { configured: boolean }) {
  const api = useApi();
  const queries = useQueryClient();
  const settings = useQuery({
    queryKey: [...aiKey, 'settings'],
    queryFn: () => api.json<AiSettings>('/api/ai/settings'),
  });
  const catalogue = useQuery({
    queryKey: [...aiKey, 'models'],
    queryFn: () => api.json<CatalogModel[]>('/api/ai/models'),
    enabled: configured,
    retry: false,
  });
  const [models, setModels] = useState<string[]>([]);
  useEffect(() => {
    if (settings.data) setModels(settings.data.allowedModels);
  }, [settings.data]);
  const save = useMutation({
    mutationFn: () => api.json<AiSettings>('/api/ai/settings', jsonInit('PUT', { allowedModels: models })),
    onSuccess: () => queries.invalidateQueries({ queryKey: [...aiKey, 'settings'] }),
  });
  return (
    <section aria-label="Model allow-list">
      <Title order={2} size="h4" mb="xs">
        Model allow-list
      </Title>
      {settings.isPending ? <Loading what="AI settings" /> : null}
      {settings.isError ? <ErrorState error={settings.error} what="AI settings" /> : null}
      {settings.data ? (
        <Stack gap="xs">
          <Text size="sm">
            {settings.data.allowedModels.length === 0
              ? 'AI is off for users: no model is allowed yet (the admin may call any model).'
              : `Allowed: ${settings.data.allowedModels.join(', ')}`}
          </Text>
          <TagsInput
            label="Allowed models"
            description="Type a model id and press Enter; users may call only these, within their daily token budget"
            data={catalogue.data?.map((m) => m.id) ?? []}
            value={models}
            onChange={setModels}
            clearable
          />
          {catalogue.isError ? (
            <Text size="xs">The provider's catalogue could not be read: {catalogue.error.message}</Text>
          ) : null}
          <Group>
            <Button loading={save.isPending} onClick={() => save.mutate()}>
              Save allow-list
            </Button>
          </Group>
          <ActionError error={save.error} title="Could not save the allow-list" />
        </Stack>
      ) : null}
    </section>
  );
}
