// Payments: the processor connection of each environment, a sync button, and the environment's
// products and prices, customers, subscriptions and payment history.
import { SegmentedControl, Stack, Title } from '@mantine/core';
import { useState } from 'react';
import { ConnectionStatus } from './ConnectionStatus';
import { PaymentsLists } from './PaymentsLists';
import type { Environment } from './types';

export default function PaymentsScreen() {
  const [environment, setEnvironment] = useState<Environment>('test');
  return (
    <Stack>
      <Title order={1} size="h2">
        Payments
      </Title>
      <SegmentedControl
        aria-label="Environment"
        value={environment}
        onChange={(v) => setEnvironment(v as Environment)}
        data={[
          { value: 'test', label: 'Test' },
          { value: 'live', label: 'Live' },
        ]}
      />
      <ConnectionStatus environment={environment} />
      <PaymentsLists key={environment} environment={environment} />
    </Stack>
  );
}
