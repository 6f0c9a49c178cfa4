// The payments settings of one processor and environment, as the admin API takes them: store the
// keys (checked with the processor first; write-only, shown masked in the status cards), remove
// them, and for Stripe (re)create the webhook endpoint of this server.
import { Button, Group, Paper, PasswordInput, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { ActionResult } from '../../ui/ActionResult';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { jsonInit } from '../../ui/json';
import { onSubmit } from '../../ui/on-submit';
import type { Connection, Environment } from './types';

export type Processor = 'stripe' | 'razorpay';

interface Field {
  name: string;
  label: string;
  placeholder: string;
  secret: boolean;
  required: boolean;
}

const FIELDS: Record<Processor, (env: Environment) => Field[]> = {
  stripe: (env) => [
    { name: 'secretKey', label: 'Secret key', placeholder: `sk_${env}_…`, secret: true, required: true },
    {
      name: 'webhookSecret',
      label: 'Webhook signing secret (optional)',
      placeholder: 'whsec_…',
      secret: true,
      required: false,
    },
  ],
  razorpay: (env) => [
    { name: 'keyId', label: 'Key id', placeholder: `rzp_${env}_…`, secret: false, required: true },
    { name: 'keySecret', label: 'Key secret', placeholder: '', secret: true, required: true },
    { name: 'webhookSecret', label: 'Webhook secret (optional)', placeholder: '', secret: true, required: false },
  ],
};
const NAMES: Record<Processor, string> = { stripe: 'Stripe', razorpay: 'Razorpay' };
const configPath = (processor: Processor, env: Environment) =>
  processor === 'stripe' ? `/api/payments/${env}/config` : `/api/payments/razorpay/${env}/config`;

export function ProcessorSettings({ processor, environment }: { processor: Processor; environment: Environment }) {
  const api = useApi();
  const queries = useQueryClient();
  const fields = FIELDS[processor](environment);
  const [values, setValues] = useState<Record<string, string>>({});
  const [done, setDone] = useState<string | null>(null);
  const refresh = () => queries.invalidateQueries({ queryKey: ['payments'] });
  const body = () =>
    Object.fromEntries(fields.filter((f) => values[f.name]?.trim()).map((f) => [f.name, values[f.name]?.trim()]));
  const save = useMutation({
    mutationFn: () => api.json(configPath(processor, environment), jsonInit('PUT', body())),
    onMutate: () => setDone(null),
    onSuccess: () => {
      setValues({});
      setDone(`${NAMES[processor]} ${environment} keys saved.`);
      return refresh();
    },
  });
  // Stripe only: the webhook endpoint at the processor, for a connected environment.
  const stripeStatus = useQuery({
    queryKey: ['payments', 'status'],
    queryFn: () => api.json<{ connections: Connection[] }>('/api/payments/status'),
    enabled: processor === 'stripe',
  });
  const stripeConnection = stripeStatus.data?.connections.find((c) => c.environment === environment);
  const razorpayStatus = useQuery({
    queryKey: ['payments', 'razorpay', 'status'],
    queryFn: () =>
      api.json<{ razorpayConnections: { environment: Environment; status: string }[] }>(
        '/api/payments/razorpay/status',
      ),
    enabled: processor === 'razorpay',
  });
  // Keys to remove: the environment is configured (connected, or failing with its keys stored).
  const configured =
    processor === 'stripe'
      ? stripeConnection !== undefined && stripeConnection.status !== 'unconfigured'
      : razorpayStatus.data?.razorpayConnections.some(
          (c) => c.environment === environment && c.status !== 'unconfigured',
        );
  const webhook = useMutation({
    mutationFn: () => api.json(`/api/payments/${environment}/webhook`, jsonInit('POST')),
    onMutate: () => setDone(null),
    onSuccess: () => {
      setDone(`The ${environment} webhook endpoint points at this server.`);
      return refresh();
    },
  });

  return (
    <Paper withBorder p="md" component="section" aria-label={`${NAMES[processor]} ${environment} settings`}>
      <Stack gap="xs">
        <Title order={2} size="h4">
          {NAMES[processor]} {environment} settings
        </Title>
        <Text size="sm">
          Keys are checked with {NAMES[processor]} before they are stored, sealed like secrets; they are never shown
          again (the status below shows them masked). Saving replaces the stored keys.
        </Text>
        <form onSubmit={onSubmit(() => save.mutate())}>
          <Stack gap="xs">
            <SimpleGrid cols={{ base: 1, sm: fields.length }}>
              {fields.map((f) => {
                const Input = f.secret ? PasswordInput : TextInput;
                return (
                  <Input
                    key={f.name}
                    label={f.label}
                    placeholder={f.placeholder}
                    required={f.required}
                    autoComplete="off"
                    value={values[f.name] ?? ''}
                    onChange={(e) => {
                      const value = e.currentTarget.value;
                      setValues((v) => ({ ...v, [f.name]: value }));
                    }}
                  />
                );
              })}
            </SimpleGrid>
            <Group gap="xs">
              <Button type="submit" loading={save.isPending}>
                Save {environment} keys
              </Button>
              {processor === 'stripe' && stripeConnection?.status === 'connected' ? (
                <Button variant="default" loading={webhook.isPending} onClick={() => webhook.mutate()}>
                  Create the {environment} webhook endpoint
                </Button>
              ) : null}
              {configured ? (
                <ConfirmButton
                  label={`Remove ${environment} keys`}
                  variant="default"
                  color="red.9"
                  title={`Remove the ${NAMES[processor]} ${environment} keys?`}
                  message={`Plinth stops talking to ${NAMES[processor]} for ${environment} until keys are stored again; the mirrored data stays.`}
                  confirmLabel="Remove keys"
                  onConfirm={async () => {
                    await api.json(configPath(processor, environment), jsonInit('DELETE'));
                    setDone(`${NAMES[processor]} ${environment} keys removed.`);
                    await refresh();
                  }}
                />
              ) : null}
            </Group>
            <ActionResult error={save.error ?? webhook.error} success={done} />
          </Stack>
        </form>
      </Stack>
    </Paper>
  );
}
