// Razorpay, the second processor, for one environment: the connection of each environment (keys,
// webhook URL, last sync), a sync button, and what Plinth mirrors of the account: items and
// plans, customers, subscriptions and transactions (/api/payments/razorpay/...).
import { Badge, Button, Group, Paper, SimpleGrid, Stack, Tabs, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { ErrorState, Loading } from '../../shell/states';
import { ActionError } from '../../ui/ActionError';
import { formatTime } from '../../ui/format';
import { jsonInit } from '../../ui/json';
import { nextSteps } from '../../ui/next-steps';
import { QueryTable } from '../../ui/QueryTable';
import { type Environment, money } from './types';

interface RazorpayConnection {
  environment: Environment;
  status: 'unconfigured' | 'connected';
  accountId: string | null;
  maskedKey: string | null;
  webhookUrl: string;
  lastSyncedAt: string | null;
  lastSyncStatus: 'succeeded' | 'failed' | null;
  lastSyncError: string | null;
}
interface Item {
  itemId: string;
  name: string;
  amount: number | null;
  currency: string;
  active: boolean;
}
interface Plan {
  planId: string;
  period: string;
  interval: number;
  amount: number | null;
  currency: string;
}
interface RzpCustomer {
  customerId: string;
  name: string | null;
  email: string | null;
  subjectType: string | null;
  subjectId: string | null;
}
interface RzpSubscription {
  subscriptionId: string;
  planId: string;
  status: string;
  subjectType: string | null;
  subjectId: string | null;
  currentEnd: string | null;
}
interface Transaction {
  objectId: string;
  type: string;
  status: string;
  amount: number | null;
  currency: string | null;
  email: string | null;
  providerCreatedAt: string | null;
  createdAt: string;
}

const SYNC_HINT = 'Sync the environment to read them from Razorpay.';
const subjectText = (r: { subjectType: string | null; subjectId: string | null }) =>
  r.subjectType ? `${r.subjectType} ${r.subjectId}` : '—';

function ConnectionCard({ connection }: { connection: RazorpayConnection }) {
  const connected = connection.status === 'connected';
  return (
    <Paper withBorder p="md" role="group" aria-label={`Razorpay ${connection.environment} environment`}>
      <Group justify="space-between">
        <Text fw={700}>{connection.environment}</Text>
        <Badge color={connected ? 'teal.9' : 'gray.8'}>{connected ? 'connected' : 'not configured'}</Badge>
      </Group>
      {connected ? (
        <Stack gap={2}>
          <Text size="sm">Key {connection.maskedKey}</Text>
          <Text size="sm">Webhook {connection.webhookUrl}</Text>
          <Text size="sm">
            Last sync {formatTime(connection.lastSyncedAt)} {connection.lastSyncStatus ?? ''}
          </Text>
          {connection.lastSyncError ? <Text size="sm">{connection.lastSyncError}</Text> : null}
        </Stack>
      ) : (
        <Text size="sm">Store a key pair with the {connection.environment} settings above.</Text>
      )}
    </Paper>
  );
}

export function RazorpayPanel({ environment }: { environment: Environment }) {
  const api = useApi();
  const queries = useQueryClient();
  const base = `/api/payments/razorpay/${environment}`;
  const key = ['payments', 'razorpay', environment];
  const status = useQuery({
    queryKey: ['payments', 'razorpay', 'status'],
    queryFn: () => api.json<{ razorpayConnections: RazorpayConnection[] }>('/api/payments/razorpay/status'),
  });
  const catalogQuery = {
    queryKey: [...key, 'catalog'],
    queryFn: () => api.json<{ items: Item[]; plans: Plan[] }>(`${base}/catalog`),
  };
  const items = useQuery({ ...catalogQuery, select: (d) => d.items });
  const plans = useQuery({ ...catalogQuery, select: (d) => d.plans });
  const customers = useQuery({
    queryKey: [...key, 'customers'],
    queryFn: async () => (await api.json<{ customers: RzpCustomer[] }>(`${base}/customers`)).customers,
  });
  const subscriptions = useQuery({
    queryKey: [...key, 'subscriptions'],
    queryFn: async () => (await api.json<{ subscriptions: RzpSubscription[] }>(`${base}/subscriptions`)).subscriptions,
  });
  const transactions = useQuery({
    queryKey: [...key, 'transactions'],
    queryFn: async () => (await api.json<{ transactions: Transaction[] }>(`${base}/transactions`)).transactions,
  });
  const sync = useMutation({
    mutationFn: () => api.json(`${base}/sync`, jsonInit('POST')),
    onSettled: () => queries.invalidateQueries({ queryKey: ['payments', 'razorpay'] }),
  });
  if (status.isPending) return <Loading what="the Razorpay connections" />;
  if (status.isError) return <ErrorState error={status.error} what="the Razorpay connections" />;
  const current = status.data.razorpayConnections.find((c) => c.environment === environment);

  return (
    <Stack>
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        {status.data.razorpayConnections.map((c) => (
          <ConnectionCard key={c.environment} connection={c} />
        ))}
      </SimpleGrid>
      <Group>
        <Button onClick={() => sync.mutate()} loading={sync.isPending} disabled={current?.status !== 'connected'}>
          Sync {environment} from Razorpay
        </Button>
      </Group>
      <ActionError error={sync.error} title="Could not sync" />
      <Tabs defaultValue="catalog" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="catalog">Items and plans</Tabs.Tab>
          <Tabs.Tab value="customers">Customers</Tabs.Tab>
          <Tabs.Tab value="subscriptions">Subscriptions</Tabs.Tab>
          <Tabs.Tab value="transactions">Transactions</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="catalog" pt="md">
          <Stack>
            <QueryTable
              label="Razorpay plans"
              query={plans}
              rowKey={(p) => p.planId}
              empty={SYNC_HINT}
              columns={[
                { header: 'Plan', cell: (p) => <Text size="xs">{p.planId}</Text> },
                { header: 'Price', cell: (p) => `${money(p.amount, p.currency)} / ${p.interval} ${p.period}` },
              ]}
            />
            <QueryTable
              label="Razorpay items"
              query={items}
              rowKey={(i) => i.itemId}
              empty={`${SYNC_HINT} Or create one (it is created at Razorpay first):`}
              next={nextSteps.razorpayItems(environment)}
              columns={[
                { header: 'Item', cell: (i) => i.name },
                { header: 'Amount', cell: (i) => money(i.amount, i.currency) },
                {
                  header: 'State',
                  cell: (i) => <Badge color={i.active ? 'teal.9' : 'gray.8'}>{i.active ? 'active' : 'inactive'}</Badge>,
                },
              ]}
            />
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="customers" pt="md">
          <QueryTable
            label="Razorpay customers"
            query={customers}
            rowKey={(c) => c.customerId}
            empty={SYNC_HINT}
            columns={[
              { header: 'Customer', cell: (c) => c.email ?? c.name ?? c.customerId },
              { header: 'Subject', cell: (r) => subjectText(r) },
            ]}
          />
        </Tabs.Panel>
        <Tabs.Panel value="subscriptions" pt="md">
          <QueryTable
            label="Razorpay subscriptions"
            query={subscriptions}
            rowKey={(s) => s.subscriptionId}
            empty={SYNC_HINT}
            columns={[
              { header: 'Subscription', cell: (s) => s.subscriptionId },
              { header: 'Plan', cell: (s) => s.planId },
              { header: 'Subject', cell: (r) => subjectText(r) },
              { header: 'Status', cell: (s) => s.status },
              { header: 'Period ends', cell: (s) => formatTime(s.currentEnd) },
            ]}
          />
        </Tabs.Panel>
        <Tabs.Panel value="transactions" pt="md">
          <QueryTable
            label="Razorpay transactions"
            query={transactions}
            rowKey={(x) => x.objectId}
            empty="Payments appear here as Razorpay reports them."
            columns={[
              { header: 'When', cell: (x) => formatTime(x.providerCreatedAt ?? x.createdAt) },
              { header: 'Type', cell: (x) => x.type },
              { header: 'Status', cell: (x) => x.status },
              { header: 'Amount', cell: (x) => money(x.amount, x.currency) },
              { header: 'Customer', cell: (x) => x.email ?? '—' },
            ]}
          />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
