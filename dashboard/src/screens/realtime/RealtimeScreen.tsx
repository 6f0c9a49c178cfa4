// Realtime: channel patterns, who may subscribe and publish, recent messages and webhook
// deliveries, one tab each.
import { Stack, Tabs, Title } from '@mantine/core';
import { ChannelsPanel } from './ChannelsPanel';
import { DeliveriesPanel } from './DeliveriesPanel';
import { MessagesPanel } from './MessagesPanel';
import { PermissionsPanel } from './PermissionsPanel';

export default function RealtimeScreen() {
  return (
    <Stack>
      <Title order={1} size="h2">
        Realtime
      </Title>
      <Tabs defaultValue="channels" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="channels">Channels</Tabs.Tab>
          <Tabs.Tab value="permissions">Permissions</Tabs.Tab>
          <Tabs.Tab value="messages">Messages</Tabs.Tab>
          <Tabs.Tab value="deliveries">Webhook deliveries</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="channels" pt="md">
          <ChannelsPanel />
        </Tabs.Panel>
        <Tabs.Panel value="permissions" pt="md">
          <PermissionsPanel />
        </Tabs.Panel>
        <Tabs.Panel value="messages" pt="md">
          <MessagesPanel />
        </Tabs.Panel>
        <Tabs.Panel value="deliveries" pt="md">
          <DeliveriesPanel />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
