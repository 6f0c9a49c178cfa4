// Realtime traffic: the busiest channels of the last day by messages, and the day's messages and
// connections (from /api/insights/realtime).
import { Stack, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import type { RealtimeInsights } from '../overview/insights-types';

export function TrafficPanel() {
  const api = useApi();
  const traffic = useQuery({
    queryKey: ['insights', 'realtime', 'day'],
    queryFn: () => api.json<RealtimeInsights>('/api/insights/realtime?range=day'),
  });
  if (traffic.isPending) return <Loading what="realtime traffic" />;
  if (traffic.isError) return <ErrorState error={traffic.error} what="realtime traffic" />;
  const { points, channels } = traffic.data;
  const messages = points.reduce((n, p) => n + p.messages, 0);
  const peak = points.reduce((n, p) => Math.max(n, p.connections), 0);
  return (
    <Stack>
      <Text>
        {messages} messages in the last day; at most {peak} connections at once.
      </Text>
      {channels.length === 0 ? (
        <EmptyState title="No messages in the last day">
          Publish one with the SDK: realtime.publish('room:1', 'said', {'{'} text: 'hi' {'}'}).
        </EmptyState>
      ) : (
        <Table striped aria-label="Busiest channels">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Channel</Table.Th>
              <Table.Th ta="right">Messages</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {channels.map((c) => (
              <Table.Tr key={c.channel}>
                <Table.Td>{c.channel}</Table.Td>
                <Table.Td ta="right">{c.messages}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
