// Payments: for the chosen processor (Stripe or Razorpay), the connection of each environment,
// a sync button, and what Plinth mirrors of the environment.
import { SegmentedControl, Stack, Title } from '@mantine/core';
import { useState } from 'react';
import { ConnectionStatus } from './ConnectionStatus';
import { PaymentsLists } from './PaymentsLists';
import { RazorpayPanel } from './RazorpayPanel';
import type { Environment } from './types';

export default function PaymentsScreen() {
  const [environment, setEnvironment] = useState<Environment>('test');
  const [processor, setProcessor] = useState<'stripe' | 'razorpay'>('stripe');
  return (
    <Stack>
      <Title order={1} size="h2">
        Payments
      </Title>
      <SegmentedControl
        aria-label="Processor"
        value={processor}
        onChange={(v) => setProcessor(v as 'stripe' | 'razorpay')}
        data={[
          { value: 'stripe', label: 'Stripe' },
          { value: 'razorpay', label: 'Razorpay' },
        ]}
      />
      <SegmentedControl
        aria-label="Environment"
        value={environment}
        onChange={(v) => setEnvironment(v as Environment)}
        data={[
          { value: 'test', label: 'Test' },
          { value: 'live', label: 'Live' },
        ]}
      />
      {processor === 'stripe' ? (
        <>
          <ConnectionStatus environment={environment} />
          <PaymentsLists key={environment} environment={environment} />
        </>
      ) : (
        <RazorpayPanel key={environment} environment={environment} />
      )}
    </Stack>
  );
}
