// What the processor holds for one environment, as last synced: products with their prices,
// customers, subscriptions and the payment history.
import { Badge, Tabs, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { formatTime } from '../../ui/format';
import { nextSteps } from '../../ui/next-steps';
import { QueryTable } from '../../ui/QueryTable';
import {
  type Customer,
  type Environment,
  money,
  type Payment,
  type Price,
  type Product,
  paymentsKey,
  type Subscription,
} from './types';

const SYNC_HINT = 'Sync the environment to read them from the processor.';

function pricesOf(product: Product, prices: Price[]) {
  return prices
    .filter((p) => p.processorProductId === product.processorProductId)
    .map((p) => `${money(p.unitAmount, p.currency)}${p.recurringInterval ? ` / ${p.recurringInterval}` : ''}`)
    .join(', ');
}

export function PaymentsLists({ environment }: { environment: Environment }) {
  const api = useApi();
  const base = `/api/payments/${environment}`;
  const catalogQuery = {
    queryKey: [...paymentsKey(environment), 'catalog'],
    queryFn: () => api.json<{ products: Product[]; prices: Price[] }>(`${base}/catalog`),
  };
  const catalog = useQuery(catalogQuery);
  const products = useQuery({ ...catalogQuery, select: (data) => data.products });
  const customers = useQuery({
    queryKey: [...paymentsKey(environment), 'customers'],
    queryFn: async () => (await api.json<{ customers: Customer[] }>(`${base}/customers`)).customers,
  });
  const subscriptions = useQuery({
    queryKey: [...paymentsKey(environment), 'subscriptions'],
    queryFn: async () => (await api.json<{ subscriptions: Subscription[] }>(`${base}/subscriptions`)).subscriptions,
  });
  const history = useQuery({
    queryKey: [...paymentsKey(environment), 'history'],
    queryFn: async () => (await api.json<{ paymentHistory: Payment[] }>(`${base}/payment-history`)).paymentHistory,
  });
  const prices = catalog.data?.prices ?? [];

  return (
    <Tabs defaultValue="products" keepMounted={false}>
      <Tabs.List>
        <Tabs.Tab value="products">Products and prices</Tabs.Tab>
        <Tabs.Tab value="customers">Customers</Tabs.Tab>
        <Tabs.Tab value="subscriptions">Subscriptions</Tabs.Tab>
        <Tabs.Tab value="history">Payment history</Tabs.Tab>
      </Tabs.List>
      <Tabs.Panel value="products" pt="md">
        <QueryTable
          label="Products"
          query={products}
          rowKey={(p) => p.processorProductId}
          empty={`${SYNC_HINT} Or create one (it is created at the processor first):`}
          next={nextSteps.products(environment)}
          columns={[
            { header: 'Product', cell: (p) => p.name },
            { header: 'Id', cell: (p) => <Text size="xs">{p.processorProductId}</Text> },
            { header: 'Prices', cell: (p) => pricesOf(p, prices) || '—' },
            {
              header: 'State',
              cell: (p) => <Badge color={p.active ? 'teal.9' : 'gray.8'}>{p.active ? 'active' : 'archived'}</Badge>,
            },
          ]}
        />
      </Tabs.Panel>
      <Tabs.Panel value="customers" pt="md">
        <QueryTable
          label="Customers"
          query={customers}
          rowKey={(c) => c.processorCustomerId}
          empty={SYNC_HINT}
          columns={[
            { header: 'Customer', cell: (c) => c.email ?? c.name ?? c.processorCustomerId },
            { header: 'Payments', cell: (c) => c.paymentsCount },
            { header: 'Spend', cell: (c) => money(c.totalSpend, c.totalSpendCurrency) },
          ]}
        />
      </Tabs.Panel>
      <Tabs.Panel value="subscriptions" pt="md">
        <QueryTable
          label="Subscriptions"
          query={subscriptions}
          rowKey={(s) => s.processorSubscriptionId}
          empty={SYNC_HINT}
          columns={[
            { header: 'Subscription', cell: (s) => s.processorSubscriptionId },
            { header: 'Customer', cell: (s) => s.processorCustomerId },
            { header: 'Subject', cell: (s) => (s.subjectType ? `${s.subjectType} ${s.subjectId}` : '—') },
            { header: 'Status', cell: (s) => s.status },
            { header: 'Period ends', cell: (s) => formatTime(s.currentPeriodEnd) },
          ]}
        />
      </Tabs.Panel>
      <Tabs.Panel value="history" pt="md">
        <QueryTable
          label="Payments"
          query={history}
          rowKey={(p) => p.id}
          empty="Payments appear here as the processor reports them. Start a checkout from your app:"
          next={nextSteps.payments(environment)}
          columns={[
            { header: 'When', cell: (p) => formatTime(p.createdAt) },
            { header: 'Type', cell: (p) => p.type },
            { header: 'Status', cell: (p) => p.status },
            { header: 'Amount', cell: (p) => money(p.amount, p.currency) },
            { header: 'Customer', cell: (p) => p.customerEmailSnapshot ?? '—' },
          ]}
        />
      </Tabs.Panel>
    </Tabs>
  );
}
