// The channel patterns: list, create, edit (in a dialog) and delete (confirmed).
import { Badge, Button, Group, Modal, Paper, Stack, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { ActionError } from '../../ui/ActionError';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { jsonInit } from '../../ui/json';
import { QueryTable } from '../../ui/QueryTable';
import { ChannelForm } from './ChannelForm';
import { type Channel, channelsKey } from './types';
import { nextSteps } from '../../ui/next-steps';

function DeleteChannel({ channel }: { channel: Channel }) {
  const api = useApi();
  const queries = useQueryClient();
  const remove = useMutation({
    mutationFn: () => api.json(`/api/realtime/channels/${channel.id}`, jsonInit('DELETE')),
    onSettled: () => queries.invalidateQueries({ queryKey: channelsKey }),
  });
  return (
    <>
      <ConfirmButton
        ariaLabel={`Delete channel ${channel.pattern}`}
        title={`Delete channel ${channel.pattern}?`}
        message="Clients can no longer join or publish on channels matching it. Stored messages stay."
        confirmLabel="Delete channel"
        onConfirm={() => remove.mutateAsync()}
        label="Delete"
        size="xs"
      />
      <ActionError error={remove.error} title="Could not delete the channel" />
    </>
  );
}

export function ChannelsPanel() {
  const api = useApi();
  const channels = useQuery({ queryKey: channelsKey, queryFn: () => api.json<Channel[]>('/api/realtime/channels') });
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Channel | null>(null);
  return (
    <Stack>
      {creating ? (
        <Paper withBorder p="md">
          <ChannelForm onDone={() => setCreating(false)} />
        </Paper>
      ) : (
        <Group>
          <Button onClick={() => setCreating(true)}>New channel</Button>
        </Group>
      )}
      <QueryTable
        label="Channels"
        emptyTitle="No channels yet"
        empty="Clients can only join channels matching a pattern listed here. Add one with New channel, or with the CLI:"
        next={nextSteps.channels()}
        minWidth={720}
        query={channels}
        rowKey={(c) => c.id}
        columns={[
          {
            header: 'Pattern',
            cell: (c) => (
              <Text size="sm" ff="monospace">
                {c.pattern}
              </Text>
            ),
          },
          { header: 'Description', cell: (c) => c.description },
          {
            header: 'Webhooks',
            cell: (c) =>
              (c.webhookUrls ?? []).map((u) => (
                <Text key={u} size="xs">
                  {u}
                </Text>
              )),
          },
          {
            header: 'State',
            cell: (c) => <Badge color={c.enabled ? 'teal.9' : 'gray.8'}>{c.enabled ? 'enabled' : 'disabled'}</Badge>,
          },
          {
            header: 'Actions',
            cell: (c) => (
              <Group gap="xs" wrap="wrap">
                <Button
                  size="xs"
                  variant="default"
                  onClick={() => setEditing(c)}
                  aria-label={`Edit channel ${c.pattern}`}
                >
                  Edit
                </Button>
                <DeleteChannel channel={c} />
              </Group>
            ),
          },
        ]}
      />
      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title="Edit channel"
        centered
        closeButtonProps={{ 'aria-label': 'Close' }}
      >
        {editing ? <ChannelForm key={editing.id} channel={editing} onDone={() => setEditing(null)} /> : null}
      </Modal>
    </Stack>
  );
}
