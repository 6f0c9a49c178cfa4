// The most recent messages on every channel: event, channel, sender, audiences and the payload.
import { Code, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { formatTime } from '../../ui/format';
import type { RealtimeMessage } from './types';
import { HorizontalScroll } from '../../ui/HorizontalScroll';

export function MessagesPanel() {
  const api = useApi();
  const messages = useQuery({
    queryKey: ['realtime', 'messages'],
    queryFn: () => api.json<RealtimeMessage[]>('/api/realtime/messages?limit=50'),
  });
  if (messages.isPending) return <Loading what="messages" />;
  if (messages.isError) return <ErrorState error={messages.error} what="messages" />;
  if (messages.data.length === 0)
    return <EmptyState title="No messages yet">Messages published on channels are kept here.</EmptyState>;
  return (
    <HorizontalScroll label="Recent messages" minWidth={760}>
      <Table aria-label="Recent messages" striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Sent</Table.Th>
            <Table.Th>Channel</Table.Th>
            <Table.Th>Event</Table.Th>
            <Table.Th>Sender</Table.Th>
            <Table.Th>Audience</Table.Th>
            <Table.Th>Payload</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {messages.data.map((m) => (
            <Table.Tr key={m.id}>
              <Table.Td>{formatTime(m.createdAt)}</Table.Td>
              <Table.Td>{m.channelName}</Table.Td>
              <Table.Td>{m.eventName}</Table.Td>
              <Table.Td>{m.senderType === 'system' ? 'system' : (m.senderId ?? 'user')}</Table.Td>
              <Table.Td>
                <Text size="xs">
                  {m.wsAudienceCount} sockets, {m.whDeliveredCount}/{m.whAudienceCount} webhooks
                </Text>
              </Table.Td>
              <Table.Td>
                <Code block>{JSON.stringify(m.payload).slice(0, 300)}</Code>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </HorizontalScroll>
  );
}
