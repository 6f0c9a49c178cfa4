// Creates a user as the admin (allowed while sign-up is off), optionally already verified.
import { Button, Group, Modal, PasswordInput, Stack, Switch, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { navigate } from '../../shell/route';
import { ActionResult } from '../../ui/ActionResult';
import { usersApi } from './users-api';
import { onSubmit } from '../../ui/on-submit';

export function CreateUserModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const api = usersApi(useApi());
  const queries = useQueryClient();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [name, setName] = useState('');
  const [autoConfirm, setAutoConfirm] = useState(true);
  const create = useMutation({
    mutationFn: () => api.create({ email, password, name: name.trim() || undefined, autoConfirm }),
    onSuccess: async ({ user }) => {
      await queries.invalidateQueries({ queryKey: ['users'] });
      setEmail('');
      setPassword('');
      setName('');
      onClose();
      navigate(`/users/${user.id}`);
    },
  });
  const submit = onSubmit(() => create.mutate());

  return (
    <Modal opened={opened} onClose={onClose} title="Create user" centered>
      <form onSubmit={submit}>
        <Stack>
          <TextInput
            label="Email"
            type="email"
            required
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
          />
          <PasswordInput
            label="Password"
            required
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.currentTarget.value)}
          />
          <TextInput label="Name (optional)" value={name} onChange={(e) => setName(e.currentTarget.value)} />
          <Switch
            label="Mark the email as verified"
            checked={autoConfirm}
            onChange={(e) => setAutoConfirm(e.currentTarget.checked)}
          />
          <ActionResult error={create.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
