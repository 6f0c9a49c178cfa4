// The processor connection of each environment (test, live): configured or not, account, last
// sync; and the button that syncs the chosen environment from the processor.
import { Badge, Button, Group, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { ErrorState, Loading } from '../../shell/states';
import { ActionError } from '../../ui/ActionError';
import { formatTime } from '../../ui/format';
import { jsonInit } from '../../ui/json';
import type { Connection, Environment } from './types';

const STATUS_COLOR = { connected: 'teal.9', error: 'red.9', unconfigured: 'gray.8' } as const;
const STATUS_TEXT = { connected: 'connected', error: 'error', unconfigured: 'not configured' } as const;

function ConnectionCard({ connection }: { connection: Connection }) {
  return (
    <Paper withBorder p="md" role="group" aria-label={`${connection.environment} environment`}>
      <Group justify="space-between">
        <Text fw={700}>{connection.environment}</Text>
        <Badge color={STATUS_COLOR[connection.status]}>{STATUS_TEXT[connection.status]}</Badge>
      </Group>
      {connection.status === 'unconfigured' ? (
        <Text size="sm">Store a secret key with the {connection.environment} settings above.</Text>
      ) : (
        <Stack gap={2}>
          <Text size="sm">Key {connection.maskedKey}</Text>
          {connection.processorAccountId ? <Text size="sm">Account {connection.processorAccountId}</Text> : null}
          <Text size="sm">
            Last sync {formatTime(connection.lastSyncedAt)} {connection.lastSyncStatus ?? ''}
          </Text>
          {connection.lastSyncError ? <Text size="sm">{connection.lastSyncError}</Text> : null}
        </Stack>
      )}
    </Paper>
  );
}

export function ConnectionStatus({ environment }: { environment: Environment }) {
  const api = useApi();
  const queries = useQueryClient();
  const status = useQuery({
    queryKey: ['payments', 'status'],
    queryFn: () => api.json<{ connections: Connection[] }>('/api/payments/status'),
  });
  const sync = useMutation({
    mutationFn: () => api.json(`/api/payments/${environment}/sync`, jsonInit('POST')),
    onSettled: () => queries.invalidateQueries({ queryKey: ['payments'] }),
  });
  if (status.isPending) return <Loading what="the processor connections" />;
  if (status.isError) return <ErrorState error={status.error} what="the processor connections" />;
  const current = status.data.connections.find((c) => c.environment === environment);
  return (
    <Stack gap="xs">
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        {status.data.connections.map((c) => (
          <ConnectionCard key={c.environment} connection={c} />
        ))}
      </SimpleGrid>
      <Group>
        <Button onClick={() => sync.mutate()} loading={sync.isPending} disabled={current?.status === 'unconfigured'}>
          Sync {environment} from the processor
        </Button>
      </Group>
      <ActionError error={sync.error} title="Could not sync" />
    </Stack>
  );
}
