// The shapes of the payments admin API the screen reads (/api/payments/...).

export type Environment = 'test' | 'live';

export interface Connection {
  environment: Environment;
  status: 'unconfigured' | 'connected' | 'error';
  processorAccountId: string | null;
  maskedKey: string | null;
  lastSyncedAt: string | null;
  lastSyncStatus: 'succeeded' | 'failed' | null;
  lastSyncError: string | null;
}

export interface Product {
  processorProductId: string;
  name: string;
  description: string | null;
  active: boolean;
}

export interface Price {
  processorPriceId: string;
  processorProductId: string | null;
  active: boolean;
  currency: string;
  unitAmount: number | null;
  type: string;
  recurringInterval: string | null;
}

export interface Customer {
  processorCustomerId: string;
  email: string | null;
  name: string | null;
  paymentsCount: number;
  totalSpend: number;
  totalSpendCurrency: string | null;
}

export interface Subscription {
  processorSubscriptionId: string;
  processorCustomerId: string;
  subjectType: string | null;
  subjectId: string | null;
  status: string;
  currentPeriodEnd: string | null;
}

export interface Payment {
  id: string;
  type: string;
  status: string;
  amount: number | null;
  currency: string | null;
  customerEmailSnapshot: string | null;
  createdAt: string;
}

export const paymentsKey = (env: Environment) => ['payments', env] as const;

/** An amount in minor units with its currency, e.g. 12.50 USD. */
export function money(amount: number | null, currency: string | null): string {
  if (amount === null) return '—';
  return `${(amount / 100).toFixed(2)} ${(currency ?? '').toUpperCase()}`;
}
