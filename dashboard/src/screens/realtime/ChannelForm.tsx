// Creating or editing a channel pattern: the pattern (SQL LIKE, % wildcard), a description, the
// webhook URLs its messages are delivered to, and whether it is open.
import { Button, Group, Stack, Switch, Textarea, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useApi } from '../../api/context';
import { ActionError } from '../../ui/ActionError';
import { jsonInit } from '../../ui/json';
import { type Channel, channelsKey } from './types';

export function ChannelForm({ channel, onDone }: { channel?: Channel; onDone(): void }) {
  const api = useApi();
  const queries = useQueryClient();
  const [pattern, setPattern] = useState(channel?.pattern ?? '');
  const [description, setDescription] = useState(channel?.description ?? '');
  const [webhooks, setWebhooks] = useState((channel?.webhookUrls ?? []).join('\n'));
  const [enabled, setEnabled] = useState(channel?.enabled ?? true);
  const save = useMutation({
    mutationFn: (body: Record<string, unknown>) =>
      channel
        ? api.json(`/api/realtime/channels/${channel.id}`, jsonInit('PUT', body))
        : api.json('/api/realtime/channels', jsonInit('POST', body)),
    onSuccess: async () => {
      await queries.invalidateQueries({ queryKey: channelsKey });
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const webhookUrls = webhooks
      .split('\n')
      .map((u) => u.trim())
      .filter(Boolean);
    save.mutate({ pattern, description, webhookUrls, enabled });
  };
  return (
    <form onSubmit={submit} aria-label={channel ? `Edit channel ${channel.pattern}` : 'New channel'}>
      <Stack>
        <TextInput
          label="Pattern"
          description="e.g. orders or chat:% (% matches any text)"
          required
          value={pattern}
          onChange={(e) => setPattern(e.currentTarget.value)}
        />
        <TextInput label="Description" value={description} onChange={(e) => setDescription(e.currentTarget.value)} />
        <Textarea
          label="Webhook URLs"
          description="One per line; every message on the channel is delivered to each"
          autosize
          minRows={2}
          value={webhooks}
          onChange={(e) => setWebhooks(e.currentTarget.value)}
        />
        <Switch label="Enabled" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
        <ActionError error={save.error} title="Could not save the channel" />
        <Group justify="flex-end">
          <Button variant="default" onClick={onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={save.isPending}>
            {channel ? 'Save channel' : 'Create channel'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
