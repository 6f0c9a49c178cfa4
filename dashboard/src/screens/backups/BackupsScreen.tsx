// Backups: take one (named or not), follow its progress, and the list with size and status; each
// can be downloaded, restored (typed confirmation) or deleted.
import { Badge, Button, Group, Loader, Paper, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useApi } from '../../api/context';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { ActionError } from '../../ui/ActionError';
import { formatBytes, formatTime } from '../../ui/format';
import { jsonInit } from '../../ui/json';
import { BackupActions } from './BackupActions';
import { type Backup, backupsKey, labelOf } from './types';
import { HorizontalScroll } from '../../ui/HorizontalScroll';

const STATUS_COLOR = { completed: 'teal.9', failed: 'red.9', running: 'blue.9' } as const;

function CreateBackup() {
  const api = useApi();
  const queries = useQueryClient();
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: () =>
      api.json<Backup>('/api/database/backups', jsonInit('POST', name.trim() ? { name: name.trim() } : {})),
    onSuccess: () => setName(''),
    onSettled: () => queries.invalidateQueries({ queryKey: backupsKey }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <Paper withBorder p="md">
      <form onSubmit={submit} aria-label="New backup">
        <Stack gap="xs">
          <Group align="flex-end" wrap="wrap">
            <TextInput
              label="Backup name (optional)"
              maxLength={64}
              value={name}
              onChange={(e) => setName(e.currentTarget.value)}
            />
            <Button type="submit" loading={create.isPending}>
              Create backup
            </Button>
          </Group>
          <ActionError error={create.error} action="create the backup" />
        </Stack>
      </form>
    </Paper>
  );
}

export default function BackupsScreen() {
  const api = useApi();
  const backups = useQuery({
    queryKey: backupsKey,
    queryFn: () => api.json<{ backups: Backup[] }>('/api/database/backups'),
    // While one is being taken, its progress is polled.
    refetchInterval: (query) => (query.state.data?.backups.some((b) => b.status === 'running') ? 1000 : false),
  });
  return (
    <Stack>
      <Title order={1} size="h2">
        Backups
      </Title>
      <CreateBackup />
      {backups.isPending ? <Loading what="backups" /> : null}
      {backups.isError ? <ErrorState error={backups.error} what="backups" /> : null}
      {backups.data?.backups.length === 0 ? (
        <EmptyState title="No backups yet">
          A backup is a consistent snapshot of the project's data and schema.
        </EmptyState>
      ) : null}
      {backups.data?.backups.length ? (
        <HorizontalScroll label="Backups" minWidth={820}>
          <Table aria-label="Backups" striped verticalSpacing="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Backup</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Size</Table.Th>
                <Table.Th>Created</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {backups.data.backups.map((b) => (
                <Table.Tr key={b.id}>
                  <Table.Td>
                    <Text size="sm">{labelOf(b)}</Text>
                    <Text size="xs">{b.triggerSource}</Text>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={6} wrap="nowrap">
                      {b.status === 'running' ? <Loader size="xs" aria-hidden="true" /> : null}
                      <Badge color={STATUS_COLOR[b.status]}>{b.status}</Badge>
                    </Group>
                    {b.errorMessage ? <Text size="xs">{b.errorMessage}</Text> : null}
                  </Table.Td>
                  <Table.Td>{formatBytes(b.sizeBytes)}</Table.Td>
                  <Table.Td>{formatTime(b.createdAt)}</Table.Td>
                  <Table.Td>
                    <BackupActions backup={b} />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </HorizontalScroll>
      ) : null}
    </Stack>
  );
}
