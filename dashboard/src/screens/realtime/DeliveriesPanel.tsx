// Webhook deliveries (one per message and URL): state, attempts, last status and error, and a
// retry for those that failed.
import { Badge, Button, SegmentedControl, Stack, Table } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { ActionError } from '../../ui/ActionError';
import { formatTime } from '../../ui/format';
import { jsonInit } from '../../ui/json';
import type { Delivery } from './types';
import { HorizontalScroll } from '../../ui/HorizontalScroll';

const STATE_COLOR = { delivered: 'teal.9', failed: 'red.9', pending: 'blue.9' } as const;

function RetryDelivery({ delivery }: { delivery: Delivery }) {
  const api = useApi();
  const queries = useQueryClient();
  const retry = useMutation({
    mutationFn: () => api.json(`/api/realtime/webhook-deliveries/${delivery.id}/retry`, jsonInit('POST')),
    onSettled: () => queries.invalidateQueries({ queryKey: ['realtime', 'deliveries'] }),
  });
  return (
    <>
      <Button size="xs" variant="default" loading={retry.isPending} onClick={() => retry.mutate()}>
        Retry
      </Button>
      <ActionError error={retry.error} action="retry the delivery" />
    </>
  );
}

export function DeliveriesPanel() {
  const api = useApi();
  const [state, setState] = useState('all');
  const deliveries = useQuery({
    queryKey: ['realtime', 'deliveries', state],
    queryFn: () =>
      api.json<Delivery[]>(`/api/realtime/webhook-deliveries?limit=100${state === 'all' ? '' : `&state=${state}`}`),
  });
  return (
    <Stack>
      <SegmentedControl
        aria-label="Delivery state"
        value={state}
        onChange={setState}
        data={['all', 'pending', 'delivered', 'failed']}
      />
      {deliveries.isPending ? <Loading what="webhook deliveries" /> : null}
      {deliveries.isError ? <ErrorState error={deliveries.error} what="webhook deliveries" /> : null}
      {deliveries.data?.length === 0 ? (
        <EmptyState title="No deliveries">Messages on channels with webhook URLs are delivered to them.</EmptyState>
      ) : null}
      {deliveries.data?.length ? (
        <HorizontalScroll label="Webhook deliveries" minWidth={820}>
          <Table aria-label="Webhook deliveries" striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>URL</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>Attempts</Table.Th>
                <Table.Th>Last status</Table.Th>
                <Table.Th>Last error</Table.Th>
                <Table.Th>Next attempt</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {deliveries.data.map((d) => (
                <Table.Tr key={d.id}>
                  <Table.Td>{d.url}</Table.Td>
                  <Table.Td>
                    <Badge color={STATE_COLOR[d.state]}>{d.state}</Badge>
                  </Table.Td>
                  <Table.Td>{d.attempts}</Table.Td>
                  <Table.Td>{d.lastStatus ?? '—'}</Table.Td>
                  <Table.Td>{d.lastError ?? '—'}</Table.Td>
                  <Table.Td>{d.state === 'pending' ? formatTime(d.nextAttemptAt) : formatTime(d.deliveredAt)}</Table.Td>
                  <Table.Td>{d.state === 'delivered' ? null : <RetryDelivery delivery={d} />}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </HorizontalScroll>
      ) : null}
    </Stack>
  );
}
