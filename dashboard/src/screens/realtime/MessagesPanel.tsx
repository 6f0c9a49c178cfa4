// The most recent messages on every channel: event, channel, sender, audiences and the payload.
import { Code, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { Time } from '../../ui/Time';
import { QueryTable } from '../../ui/QueryTable';
import type { RealtimeMessage } from './types';
import { nextSteps } from '../../ui/next-steps';

export function MessagesPanel() {
  const api = useApi();
  const messages = useQuery({
    queryKey: ['realtime', 'messages'],
    queryFn: () => api.json<RealtimeMessage[]>('/api/realtime/messages?limit=50'),
  });
  return (
    <QueryTable
      label="Recent messages"
      what="messages"
      emptyTitle="No messages yet"
      empty="Messages published on channels are kept here. Publish one from your app or from SQL:"
      next={nextSteps.messages()}
      minWidth={760}
      query={messages}
      rowKey={(m) => m.id}
      columns={[
        { header: 'Sent', cell: (m) => <Time iso={m.createdAt} /> },
        { header: 'Channel', cell: (m) => m.channelName },
        { header: 'Event', cell: (m) => m.eventName },
        { header: 'Sender', cell: (m) => (m.senderType === 'system' ? 'system' : (m.senderId ?? 'user')) },
        {
          header: 'Audience',
          cell: (m) => (
            <Text size="xs">
              {m.wsAudienceCount} sockets, {m.whDeliveredCount}/{m.whAudienceCount} webhooks
            </Text>
          ),
        },
        { header: 'Payload', cell: (m) => <Code block>{JSON.stringify(m.payload).slice(0, 300)}</Code> },
      ]}
    />
  );
}
