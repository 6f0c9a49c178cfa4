// Webhook deliveries (one per message and URL): state, attempts, last status and error, and a
// retry for those that failed.
import { Badge, Button, SegmentedControl, Stack } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { ActionError } from '../../ui/ActionError';
import { Time } from '../../ui/Time';
import { jsonInit } from '../../ui/json';
import { QueryTable } from '../../ui/QueryTable';
import type { Delivery } from './types';

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
      <ActionError error={retry.error} title="Could not retry the delivery" />
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
      <QueryTable
        label="Webhook deliveries"
        emptyTitle="No deliveries"
        empty="Messages on channels with webhook URLs are delivered to them."
        minWidth={820}
        query={deliveries}
        rowKey={(d) => d.id}
        columns={[
          { header: 'URL', cell: (d) => d.url },
          { header: 'State', cell: (d) => <Badge color={STATE_COLOR[d.state]}>{d.state}</Badge> },
          { header: 'Attempts', cell: (d) => d.attempts },
          { header: 'Last status', cell: (d) => d.lastStatus ?? '—' },
          { header: 'Last error', cell: (d) => d.lastError ?? '—' },
          {
            header: 'Next attempt',
            cell: (d) => <Time iso={d.state === 'pending' ? d.nextAttemptAt : d.deliveredAt} />,
          },
          { header: 'Actions', cell: (d) => (d.state === 'delivered' ? null : <RetryDelivery delivery={d} />) },
        ]}
      />
    </Stack>
  );
}
