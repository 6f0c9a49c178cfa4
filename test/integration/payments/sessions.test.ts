// Customer portal and checkout sessions: only for a billing subject the caller may act for,
// recorded initialized → created/open or failed, idempotent checkout, every validation limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../../harness/test-app.js';
import { twoUsers, type SignedInUser } from '../../harness/users.js';
import { startPaymentsApp, stockOnePrice, TEST_KEY, type PaymentsApp } from './payments-app.js';

let p: PaymentsApp;
let alice: SignedInUser;
let bob: SignedInUser;
let adminToken = '';

beforeAll(async () => {
  p = await startPaymentsApp();
  await p.configureBoth();
  ({ alice, bob } = await twoUsers(p.t));
  adminToken = await p.t.adminToken();
  for (const [id, subject] of [
    ['cus_alice', alice.id],
    ['cus_bob', bob.id],
  ] as const) {
    p.peer.put(TEST_KEY, {
      id,
      object: 'customer',
      email: null,
      name: null,
      metadata: { svc_subject_type: 'user', svc_subject_id: subject },
    });
  }
  p.peer.put(TEST_KEY, {
    id: 'cus_team',
    object: 'customer',
    email: null,
    name: null,
    metadata: { svc_subject_type: 'team', svc_subject_id: 't1' },
  });
  await stockOnePrice(p, 'one_time');
});
afterAll(() => p.close());

const portal = (headers: Record<string, string>, payload: object, env = 'test') =>
  p.t.request({ method: 'POST', url: `/api/payments/${env}/customer-portal-sessions`, headers, payload });
const portalRows = (env = 'test') =>
  p.t.deps.sql`select status, subject_id, last_error from payments.customer_portal_sessions where environment = ${env}`;

describe('customer portal sessions', () => {
  it('a user opens the portal of their own subject', async () => {
    const res = await portal(bearer(alice.token), {
      subject: { type: 'user', id: alice.id },
      returnUrl: 'https://app.example.com/account',
      configuration: 'bpc_1',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json.customerPortalSession).toMatchObject({
      environment: 'test',
      status: 'created',
      subjectType: 'user',
      subjectId: alice.id,
      processorCustomerId: 'cus_alice',
      returnUrl: 'https://app.example.com/account',
      configuration: 'bpc_1',
      lastError: null,
    });
    expect(res.json.customerPortalSession.url).toMatch(/^https:\/\/billing\.processor\.test\/session\/bps_/);
    const sent = p.peer.requests.findLast((r) => r.path === '/v1/billing_portal/sessions')!;
    expect(sent.params).toMatchObject({
      customer: 'cus_alice',
      return_url: 'https://app.example.com/account',
      configuration: 'bpc_1',
    });
  });

  it("refuses a user asking for someone else's subject, and records nothing", async () => {
    const before = (await portalRows()).length;
    for (const subject of [
      { type: 'user', id: bob.id },
      { type: 'team', id: 't1' },
    ]) {
      const res = await portal(bearer(alice.token), { subject });
      expect(res.statusCode).toBe(403);
      expect(res.json).toMatchObject({ error: 'FORBIDDEN', statusCode: 403 });
    }
    expect(await portalRows()).toHaveLength(before);
  });

  it("a developer's row-level security policy lets team members act for their team", async () => {
    await p.t.deps.sql.unsafe(`
      create table public.team_members (team_id text not null, user_id uuid not null);
      create policy own_rows on public.team_members for select to authenticated using (user_id = auth.uid());
      grant select on public.team_members to authenticated;
      create policy team_member on payments.customer_portal_sessions to authenticated
        using (subject_type = 'team' and exists (select 1 from public.team_members m where m.team_id = subject_id and m.user_id = auth.uid()))
        with check (subject_type = 'team' and exists (select 1 from public.team_members m where m.team_id = subject_id and m.user_id = auth.uid()));
    `);
    await p.t.deps.sql`insert into public.team_members values ('t1', ${bob.id})`;
    const member = await portal(bearer(bob.token), { subject: { type: 'team', id: 't1' } });
    expect(member.statusCode).toBe(201);
    expect(member.json.customerPortalSession).toMatchObject({ status: 'created', processorCustomerId: 'cus_team' });
    expect((await portal(bearer(alice.token), { subject: { type: 'team', id: 't1' } })).statusCode).toBe(403);
  });

  it('the admin may open any subject; API key and anon key are refused (401)', async () => {
    expect(
      (await portal(bearer(adminToken), { subject: { type: 'team', id: 't1' } })).json.customerPortalSession
        .processorCustomerId,
    ).toBe('cus_team');
    expect((await portal(p.admin, { subject: { type: 'team', id: 't1' } })).statusCode).toBe(401);
    expect((await portal(bearer(p.t.anonKey), { subject: { type: 'user', id: alice.id } })).statusCode).toBe(401);
  });

  it('a subject without a customer is 404 and the session is recorded failed; environments are apart', async () => {
    const res = await portal(bearer(alice.token), { subject: { type: 'user', id: alice.id } }, 'live');
    expect(res.statusCode).toBe(404);
    expect(res.json.error).toBe('PAYMENT_NOT_FOUND');
    expect(await portalRows('live')).toEqual([
      {
        status: 'failed',
        subject_id: alice.id,
        last_error: 'No processor customer is mapped to this billing subject.',
      },
    ]);
  });

  it('the processor failing is a 502 and the session is recorded failed', async () => {
    p.peer.failNext(1, '/v1/billing_portal');
    const res = await portal(bearer(bob.token), { subject: { type: 'user', id: bob.id } });
    expect(res.statusCode).toBe(502);
    expect(res.json.error).toBe('UPSTREAM_FAILURE');
    expect((await portalRows()).filter((r) => r.subject_id === bob.id)).toEqual([
      { status: 'failed', subject_id: bob.id, last_error: expect.stringContaining('The processor failed') },
    ]);
  });

  it.each([
    [{}],
    [{ subject: { type: 'user' } }],
    [{ subject: { type: '', id: 'x' } }],
    [{ subject: { type: 't'.repeat(101), id: 'x' } }],
    [{ subject: { type: 'user', id: '' } }],
    [{ subject: { type: 'user', id: 'i'.repeat(256) } }],
    [{ subject: { type: 'user', id: 'x', extra: 1 } }],
    [{ subject: { type: 'user', id: 'x' }, returnUrl: 'not a url' }],
    [{ subject: { type: 'user', id: 'x' }, configuration: '' }],
    [{ subject: { type: 'user', id: 'x' }, configuration: 'c'.repeat(256) }],
    [{ subject: { type: 'user', id: 'x' }, other: true }],
  ])('portal body %j → 400', async (body) => {
    const res = await portal(bearer(alice.token), body);
    expect(res.statusCode).toBe(400);
    expect(res.json.error).toBe('VALIDATION_ERROR');
  });
});

const checkout = (headers: Record<string, string>, payload: object) =>
  p.t.request({ method: 'POST', url: '/api/payments/test/checkout-sessions', headers, payload });
const paymentBody = (extra: object = {}) => ({
  mode: 'payment',
  lineItems: [{ processorPriceId: 'price_1', quantity: 2 }],
  successUrl: 'https://app.example.com/ok',
  cancelUrl: 'https://app.example.com/cancel',
  ...extra,
});

describe('checkout sessions', () => {
  it('guest checkout with the anon key', async () => {
    const res = await checkout(bearer(p.t.anonKey), paymentBody({ customerEmail: 'guest@example.com' }));
    expect(res.statusCode).toBe(201);
    const s = res.json.checkoutSession;
    expect(s).toMatchObject({
      environment: 'test',
      mode: 'payment',
      status: 'open',
      paymentStatus: 'unpaid',
      subjectType: null,
      customerEmail: 'guest@example.com',
      lastError: null,
    });
    expect(s.url).toMatch(/^https:\/\/checkout\.processor\.test\/pay\/cs_/);
    const sent = p.peer.get(TEST_KEY, s.processorCheckoutSessionId)!;
    expect(sent).toMatchObject({ client_reference_id: s.id, customer_email: 'guest@example.com', mode: 'payment' });
    expect(sent.line_items_input).toEqual([{ price: 'price_1', quantity: '2' }]);
  });

  it('a subscription for the user themselves uses their mapped customer and carries the subject', async () => {
    const res = await checkout(
      bearer(alice.token),
      paymentBody({ mode: 'subscription', subject: { type: 'user', id: alice.id } }),
    );
    expect(res.statusCode).toBe(201);
    const sent = p.peer.get(TEST_KEY, res.json.checkoutSession.processorCheckoutSessionId)!;
    expect(sent.customer).toBe('cus_alice');
    expect(sent.metadata).toMatchObject({
      svc_subject_type: 'user',
      svc_subject_id: alice.id,
      svc_checkout_session_id: res.json.checkoutSession.id,
    });
  });

  it("refuses someone else's subject, a subject for the anon key, and the API key", async () => {
    const other = await checkout(bearer(alice.token), paymentBody({ subject: { type: 'user', id: bob.id } }));
    expect(other.statusCode).toBe(403);
    expect(
      (await checkout(bearer(p.t.anonKey), paymentBody({ subject: { type: 'user', id: bob.id } }))).statusCode,
    ).toBe(403);
    const key = await checkout(p.admin, paymentBody());
    expect(key.statusCode).toBe(401);
    expect(key.json.message).toBe('Checkout session creation requires a user token.');
  });

  it('same key and request → same session; another request with that key → 409', async () => {
    const body = paymentBody({ idempotencyKey: 'order-1' });
    const first = await checkout(bearer(alice.token), body);
    const again = await checkout(bearer(alice.token), body);
    expect(again.statusCode).toBe(201);
    expect(again.json.checkoutSession).toEqual(first.json.checkoutSession);
    const changed = await checkout(bearer(alice.token), {
      ...body,
      lineItems: [{ processorPriceId: 'price_1', quantity: 3 }],
    });
    expect(changed.statusCode).toBe(409);
    expect(changed.json.error).toBe('PAYMENT_CHECKOUT_ALREADY_EXISTS');
    expect((await checkout(bearer(bob.token), body)).statusCode).toBe(409);
    const sent = p.peer.requests.filter(
      (r) => r.path === '/v1/checkout/sessions' && r.idempotencyKey === 'svc:test:checkout.sessions.create:order-1',
    );
    expect(sent).toHaveLength(1);
  });

  it("the JavaScript client's priceId names the same price: same request, same session", async () => {
    const body = paymentBody({ idempotencyKey: 'order-alias' });
    const first = await checkout(bearer(alice.token), body);
    expect(first.statusCode).toBe(201);
    const sent = p.peer.get(TEST_KEY, first.json.checkoutSession.processorCheckoutSessionId)!;
    expect(sent.line_items_input).toEqual([{ price: 'price_1', quantity: '2' }]);
    const aliased = await checkout(bearer(alice.token), { ...body, lineItems: [{ priceId: 'price_1', quantity: 2 }] });
    expect(aliased.statusCode).toBe(201);
    expect(aliased.json.checkoutSession).toEqual(first.json.checkoutSession);
  });

  it('two concurrent requests with one key get one session', async () => {
    const body = paymentBody({ idempotencyKey: 'order-concurrent' });
    const [a, b] = await Promise.all([checkout(bearer(alice.token), body), checkout(bearer(alice.token), body)]);
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(a.json.checkoutSession.id).toBe(b.json.checkoutSession.id);
    expect(
      await p.t.deps.sql`select 1 from payments.checkout_sessions where idempotency_key = 'order-concurrent'`,
    ).toHaveLength(1);
  });

  it('the processor failing is a 502, recorded failed; a retry with the same key opens the same session', async () => {
    p.peer.failNext(1, '/v1/checkout');
    const body = paymentBody({ idempotencyKey: 'order-2' });
    const failed = await checkout(bearer(alice.token), body);
    expect(failed.statusCode).toBe(502);
    const [row] = await p.t.deps
      .sql`select id, status from payments.checkout_sessions where idempotency_key = 'order-2'`;
    expect(row!.status).toBe('failed');
    const retried = await checkout(bearer(alice.token), body);
    expect(retried.statusCode).toBe(201);
    expect(retried.json.checkoutSession).toMatchObject({ id: row!.id, status: 'open', lastError: null });
  });

  it.each([
    [{ mode: 'rent' }],
    [{ lineItems: [] }],
    [{ lineItems: Array.from({ length: 101 }, () => ({ processorPriceId: 'price_1' })) }],
    [{ lineItems: [{ processorPriceId: 'price_1', quantity: 0 }] }],
    [{ lineItems: [{ processorPriceId: 'price_1', quantity: 1000 }] }],
    [{ lineItems: [{ processorPriceId: '' }] }],
    [{ lineItems: [{ quantity: 1 }] }],
    [{ lineItems: [{ processorPriceId: 'price_1', priceId: 'price_1' }] }],
    [{ lineItems: [{ priceId: '' }] }],
    [{ successUrl: 'nope' }],
    [{ cancelUrl: 'nope' }],
    [{ mode: 'subscription' }],
    [{ subject: { type: 'user', id: '' } }],
    [{ customerEmail: 'not-an-email' }],
    [{ metadata: { svc_subject_id: 'x' } }],
    [{ idempotencyKey: '' }],
    [{ idempotencyKey: 'k'.repeat(201) }],
    [{ unknown: 1 }],
  ])('checkout body with %j → 400', async (change) => {
    const res = await checkout(bearer(alice.token), paymentBody(change));
    expect(res.statusCode).toBe(400);
    expect(res.json.error).toBe('VALIDATION_ERROR');
  });

  it('accepts the limits themselves', async () => {
    const res = await checkout(
      bearer(alice.token),
      paymentBody({
        lineItems: Array.from({ length: 100 }, () => ({ processorPriceId: 'price_1', quantity: 999 })),
        idempotencyKey: 'k'.repeat(200),
        customerEmail: null,
      }),
    );
    expect(res.statusCode).toBe(201);
  });
});
