// Backups: take one (named or not), follow its progress, and the list with size and status; each
// can be downloaded, restored (typed confirmation) or deleted.
import { Badge, Button, Group, Loader, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useApi } from '../../api/context';
import { ActionError } from '../../ui/ActionError';
import { formatBytes } from '../../ui/format';
import { Time } from '../../ui/Time';
import { jsonInit } from '../../ui/json';
import { QueryTable } from '../../ui/QueryTable';
import { BackupActions } from './BackupActions';
import { type Backup, backupsKey, labelOf } from './types';
import { nextSteps } from '../../ui/next-steps';

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
          <ActionError error={create.error} title="Could not create the backup" />
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
    select: (list) => list.backups,
    // While one is being taken, its progress is polled.
    refetchInterval: (query) => (query.state.data?.backups.some((b) => b.status === 'running') ? 1000 : false),
  });
  return (
    <Stack>
      <Title order={1} size="h2">
        Backups
      </Title>
      <CreateBackup />
      <QueryTable
        label="Backups"
        emptyTitle="No backups yet"
        empty="A backup is a consistent snapshot of the project's data and schema. Take one above, or with the CLI:"
        next={nextSteps.backups()}
        minWidth={820}
        query={backups}
        rowKey={(b) => b.id}
        columns={[
          {
            header: 'Backup',
            cell: (b) => (
              <>
                <Text size="sm">{labelOf(b)}</Text>
                <Text size="xs">{b.triggerSource}</Text>
              </>
            ),
          },
          {
            header: 'Status',
            cell: (b) => (
              <>
                <Group gap={6} wrap="nowrap">
                  {b.status === 'running' ? <Loader size="xs" aria-hidden="true" /> : null}
                  <Badge color={STATUS_COLOR[b.status]}>{b.status}</Badge>
                </Group>
                {b.errorMessage ? <Text size="xs">{b.errorMessage}</Text> : null}
              </>
            ),
          },
          { header: 'Size', cell: (b) => formatBytes(b.sizeBytes) },
          { header: 'Created', cell: (b) => <Time iso={b.createdAt} /> },
          { header: 'Actions', cell: (b) => <BackupActions backup={b} /> },
        ]}
      />
    </Stack>
  );
}
