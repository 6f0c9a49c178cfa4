// The channel patterns: list, create, edit (in a dialog) and delete (confirmed).
import { Badge, Button, Group, Modal, Paper, Stack, Table, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { ActionError } from '../../ui/ActionError';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { jsonInit } from '../../ui/json';
import { ChannelForm } from './ChannelForm';
import { type Channel, channelsKey } from './types';
import { HorizontalScroll } from '../../ui/HorizontalScroll';

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
        aria-label={`Delete channel ${channel.pattern}`}
        title={`Delete channel ${channel.pattern}?`}
        message="Clients can no longer join or publish on channels matching it. Stored messages stay."
        confirmLabel="Delete channel"
        onConfirm={() => remove.mutate()}
      >
        Delete
      </ConfirmButton>
      <ActionError error={remove.error} action="delete the channel" />
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
      {channels.isPending ? <Loading what="channels" /> : null}
      {channels.isError ? <ErrorState error={channels.error} what="channels" /> : null}
      {channels.data?.length === 0 ? (
        <EmptyState title="No channels yet">Clients can only join channels matching a pattern listed here.</EmptyState>
      ) : null}
      {channels.data?.length ? (
        <HorizontalScroll label="Channels" minWidth={720}>
          <Table aria-label="Channels" striped verticalSpacing="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Pattern</Table.Th>
                <Table.Th>Description</Table.Th>
                <Table.Th>Webhooks</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {channels.data.map((c) => (
                <Table.Tr key={c.id}>
                  <Table.Td>
                    <Text size="sm" ff="monospace">
                      {c.pattern}
                    </Text>
                  </Table.Td>
                  <Table.Td>{c.description}</Table.Td>
                  <Table.Td>
                    {(c.webhookUrls ?? []).map((u) => (
                      <Text key={u} size="xs">
                        {u}
                      </Text>
                    ))}
                  </Table.Td>
                  <Table.Td>
                    <Badge color={c.enabled ? 'teal.9' : 'gray.8'}>{c.enabled ? 'enabled' : 'disabled'}</Badge>
                  </Table.Td>
                  <Table.Td>
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
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </HorizontalScroll>
      ) : null}
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
