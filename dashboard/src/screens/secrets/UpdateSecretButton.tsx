// Replaces a secret's value (the old one is not shown; the new one is write-only too).
import { Button, Group, Modal, PasswordInput, Stack } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { ActionResult } from '../../ui/ActionResult';
import { secretsApi } from './secrets-api';
import { onSubmit } from '../../ui/on-submit';

export function UpdateSecretButton({ secretKey, onUpdated }: { secretKey: string; onUpdated: () => void }) {
  const api = secretsApi(useApi());
  const [opened, { open, close }] = useDisclosure(false);
  const [value, setValue] = useState('');
  const update = useMutation({
    mutationFn: () => api.update(secretKey, value),
    onSuccess: () => {
      setValue('');
      close();
      onUpdated();
    },
  });
  const submit = onSubmit(() => update.mutate());
  return (
    <>
      <Button size="xs" variant="default" aria-label={`Update ${secretKey}`} onClick={open}>
        Update
      </Button>
      <Modal opened={opened} onClose={close} title={`New value for ${secretKey}`} centered>
        <form onSubmit={submit}>
          <Stack>
            <PasswordInput
              label="New value"
              required
              autoComplete="off"
              value={value}
              onChange={(e) => setValue(e.currentTarget.value)}
            />
            <ActionResult error={update.error} />
            <Group justify="flex-end">
              <Button variant="default" onClick={close}>
                Cancel
              </Button>
              <Button type="submit" loading={update.isPending}>
                Save value
              </Button>
            </Group>
          </Stack>
        </form>
      </Modal>
    </>
  );
}
