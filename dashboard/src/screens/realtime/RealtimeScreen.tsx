// Realtime: channel patterns, who may subscribe and publish, recent messages, webhook deliveries
// and the busiest channels, one tab each.
import { Stack, Tabs, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { ChannelsPanel } from './ChannelsPanel';
import { DeliveriesPanel } from './DeliveriesPanel';
import { MessagesPanel } from './MessagesPanel';
import { PermissionsPanel } from './PermissionsPanel';
import { TrafficPanel } from './TrafficPanel';

const TABS: { value: string; label: string; panel: ReactNode }[] = [
  { value: 'channels', label: 'Channels', panel: <ChannelsPanel /> },
  { value: 'permissions', label: 'Permissions', panel: <PermissionsPanel /> },
  { value: 'messages', label: 'Messages', panel: <MessagesPanel /> },
  { value: 'deliveries', label: 'Webhook deliveries', panel: <DeliveriesPanel /> },
  { value: 'traffic', label: 'Traffic', panel: <TrafficPanel /> },
];

export default function RealtimeScreen() {
  return (
    <Stack>
      <Title order={1} size="h2">
        Realtime
      </Title>
      <Tabs defaultValue="channels" keepMounted={false}>
        <Tabs.List>
          {TABS.map((tab) => (
            <Tabs.Tab key={tab.value} value={tab.value}>
              {tab.label}
            </Tabs.Tab>
          ))}
        </Tabs.List>
        {TABS.map((tab) => (
          <Tabs.Panel key={tab.value} value={tab.value} pt="md">
            {tab.panel}
          </Tabs.Panel>
        ))}
      </Tabs>
    </Stack>
  );
}
