// Payments: for the chosen processor (Stripe or Razorpay), the settings of the chosen environment
// (its keys), the connection of each environment, a sync button, and what Plinth mirrors of it.
import { SegmentedControl, Stack, Title } from '@mantine/core';
import { useState } from 'react';
import { ConnectionStatus } from './ConnectionStatus';
import { PaymentsLists } from './PaymentsLists';
import { type Processor, ProcessorSettings } from './ProcessorSettings';
import { RazorpayPanel } from './RazorpayPanel';
import type { Environment } from './types';

export default function PaymentsScreen() {
  const [environment, setEnvironment] = useState<Environment>('test');
  const [processor, setProcessor] = useState<Processor>('stripe');
  return (
    <Stack>
      <Title order={1} size="h2">
        Payments
      </Title>
      <SegmentedControl
        aria-label="Processor"
        value={processor}
        onChange={(v) => setProcessor(v as Processor)}
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
      <ProcessorSettings key={`${processor}-${environment}`} processor={processor} environment={environment} />
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
