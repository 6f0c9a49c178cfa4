// SQL for the admin's customer list: mirrored customers with what their payment history says
// they paid (count, last payment, spend net of refunds) and their latest card and country.
import type { Queryable } from '../../core/db.js';
import type { CustomerOut } from './payments.schemas.js';
import type { Environment } from './processor.js';

/** Mirrored customers with what they paid: successful payments net of refunds, in their latest currency. */
export async function listCustomers(db: Queryable, env: Environment, limit: number) {
  // Counts for every customer in one grouped pass pick the page; the details are read for it only.
  return db<CustomerOut[]>`
    with paid as (
      select processor_customer_id, count(*)::int as count, max(paid_at) as last_at from payments.payment_history
      where environment = ${env} and paid_at is not null and type in ('one_time_payment', 'subscription_invoice')
      group by processor_customer_id
    ), page as (
      select c.*, paid.count, paid.last_at from payments.customers c left join paid using (processor_customer_id)
      where c.environment = ${env} and not c.deleted
      order by paid.last_at desc nulls last, c.synced_at desc, c.processor_customer_id
      limit ${limit}
    )
    select c.environment, c.processor_customer_id as "processorCustomerId", c.email, c.name,
      m.subject_type as "subjectType", m.subject_id as "subjectId", c.metadata, c.synced_at as "syncedAt",
      coalesce(c.count, 0) as "paymentsCount", c.last_at as "lastPaymentAt",
      coalesce(spend.total, 0) as "totalSpend", latest.currency as "totalSpendCurrency",
      coalesce(card.brand, c.raw #>> '{invoice_settings,default_payment_method,card,brand}') as "paymentMethodBrand",
      coalesce(card.last4, c.raw #>> '{invoice_settings,default_payment_method,card,last4}') as "paymentMethodLast4",
      upper(coalesce(c.raw #>> '{address,country}', card.country)) as "countryCode"
    from page c
    left join lateral (
      select subject_type, subject_id from payments.customer_mappings
      where environment = c.environment and processor_customer_id = c.processor_customer_id
      order by updated_at desc limit 1) m on true
    left join lateral (
      select currency from payments.payment_history
      where environment = c.environment and processor_customer_id = c.processor_customer_id and paid_at is not null
        and type in ('one_time_payment', 'subscription_invoice')
      order by paid_at desc limit 1) latest on true
    left join lateral (
      select sum(amount - amount_refunded)::float8 as total from payments.payment_history
      where environment = c.environment and processor_customer_id = c.processor_customer_id and paid_at is not null
        and type in ('one_time_payment', 'subscription_invoice') and currency = latest.currency) spend on true
    left join lateral (
      select payment_method_brand as brand, payment_method_last4 as last4, country_code as country
      from payments.payment_history
      where environment = c.environment and processor_customer_id = c.processor_customer_id and payment_method_last4 is not null
      order by coalesce(paid_at, failed_at, created_at) desc limit 1) card on true
    order by c.last_at desc nulls last, c.synced_at desc, c.processor_customer_id`;
}
