// Creates a secret: an upper-case key and its value (sent once, never read back).
import { Button, Group, Paper, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { ActionResult } from '../../ui/ActionResult';
import { secretsApi } from './secrets-api';
import { onSubmit } from '../../ui/on-submit';

export function CreateSecretForm({ onCreated }: { onCreated: () => void }) {
  const api = secretsApi(useApi());
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const create = useMutation({
    mutationFn: () => api.create(key, value),
    onSuccess: () => {
      setKey('');
      setValue('');
      onCreated();
    },
  });
  const submit = onSubmit(() => create.mutate());
  return (
    <Paper withBorder p="md" component="form" onSubmit={submit}>
      <Stack>
        <Group grow align="flex-start" wrap="wrap">
          <TextInput
            label="Secret key"
            description="A-Z, 0-9 and _"
            required
            value={key}
            onChange={(e) => setKey(e.currentTarget.value.toUpperCase())}
            miw={200}
          />
          <PasswordInput
            label="Secret value"
            description="Write-only: it is never shown again"
            required
            autoComplete="off"
            value={value}
            onChange={(e) => setValue(e.currentTarget.value)}
            miw={200}
          />
        </Group>
        <ActionResult error={create.error} />
        <Group>
          <Button type="submit" loading={create.isPending}>
            Create secret
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
