// Customer portal and checkout sessions. The session row is first recorded in the caller's own
// request scope (row-level security decides whether the caller may act for the billing
// subject), then the processor creates the session and the row becomes created/open or failed.
import { createHash } from 'node:crypto';
import type postgres from 'postgres';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import type { Principal } from '../../core/principal.js';
import { principalId, runAsCaller } from './caller-scope.js';
import { findMapping, SUBJECT_ID_KEY, SUBJECT_TYPE_KEY, type Subject } from './billing.repo.js';
import type { ConnectionsService } from './connections.service.js';
import type { CheckoutCreate, PortalCreate } from './payments.schemas.js';
import { callProcessor, idOf, namespacedKey, type Environment } from './processor.js';
import * as repo from './sessions.repo.js';

const CHECKOUT_SESSION_KEY = 'svc_checkout_session_id';

/** Payments' meaning of a refusal by row-level security: "not your subject" (see core/pg-errors.ts). */
const notYourSubject = (cause: unknown) =>
  new AppError('FORBIDDEN', 'You may not open a billing session for this subject.', {
    cause,
    nextActions:
      'A user may act for the subject {type: "user", id: <their user id>}; other subjects need a row-level security policy.',
  });

/** Inserts under the caller's role; a refusal by row-level security means "not your subject". */
const recordAsCaller = <T>(deps: Deps, principal: Principal, insert: (db: postgres.Sql) => Promise<T>) =>
  runAsCaller(deps, principal, notYourSubject, insert);

const failureText = (err: unknown) => (err instanceof AppError ? err.message : 'The processor request failed.');

export function createSessionsService(deps: Deps, connections: ConnectionsService) {
  const now = () => deps.clock.now();

  return {
    async createPortalSession(env: Environment, principal: Principal, input: PortalCreate) {
      const id = await recordAsCaller(deps, principal, (db) =>
        repo.insertPortalSession(
          db,
          {
            environment: env,
            subjectType: input.subject.type,
            subjectId: input.subject.id,
            returnUrl: input.returnUrl ?? null,
            configuration: input.configuration ?? null,
            createdBy: principalId(principal),
          },
          now(),
        ),
      );
      const customerId = await findMapping(deps.sql, env, input.subject);
      if (customerId === undefined) {
        const message = 'No processor customer is mapped to this billing subject.';
        await repo.finishPortalSession(deps.sql, id, { status: 'failed', lastError: message }, now());
        throw new AppError('PAYMENT_NOT_FOUND', message, {
          nextActions:
            'The subject gets a customer with its first checkout, or by a sync of customers carrying svc_subject_type/svc_subject_id metadata.',
        });
      }
      try {
        const processor = await connections.processor(env);
        const session = await callProcessor('create the customer portal session', () =>
          processor.billingPortal.sessions.create(
            { customer: customerId, return_url: input.returnUrl, configuration: input.configuration },
            { idempotencyKey: namespacedKey(env, 'billing_portal.sessions.create', id) },
          ),
        );
        return repo.finishPortalSession(
          deps.sql,
          id,
          { status: 'created', processorCustomerId: customerId, url: session.url },
          now(),
        );
      } catch (err) {
        await repo.finishPortalSession(
          deps.sql,
          id,
          { status: 'failed', processorCustomerId: customerId, lastError: failureText(err) },
          now(),
        );
        throw err;
      }
    },

    async createCheckoutSession(env: Environment, principal: Principal, input: CheckoutCreate) {
      const { idempotencyKey, ...request } = input;
      const createdBy = principalId(principal);
      const fingerprint = createHash('sha256')
        .update(JSON.stringify([createdBy, request]))
        .digest('hex');
      const subject: Subject | null = input.subject ?? null;

      const existing = async () => {
        const row =
          idempotencyKey === undefined ? undefined : await repo.findCheckoutByKey(deps.sql, env, idempotencyKey);
        if (row && row.fingerprint !== fingerprint) {
          throw new AppError(
            'PAYMENT_CHECKOUT_ALREADY_EXISTS',
            'Idempotency key is already used for another checkout request.',
            {
              nextActions: 'Use a new idempotencyKey for a different checkout request.',
            },
          );
        }
        return row;
      };

      const previous = await existing();
      if (previous && previous.status !== 'failed') {
        const { fingerprint: _f, ...session } = previous;
        return session;
      }
      const id =
        previous?.id ??
        (await recordAsCaller(deps, principal, (db) =>
          repo.insertCheckoutSession(
            db,
            {
              environment: env,
              mode: input.mode,
              subjectType: subject?.type ?? null,
              subjectId: subject?.id ?? null,
              customerEmail: input.customerEmail ?? null,
              idempotencyKey: idempotencyKey ?? null,
              fingerprint,
              createdBy,
            },
            now(),
          ),
        ));
      if (id === undefined) {
        // A concurrent request with the same key won the insert: answer what it recorded.
        const { fingerprint: _f, ...session } = (await existing())!;
        return session;
      }

      try {
        const processor = await connections.processor(env);
        const customerId = subject ? await findMapping(deps.sql, env, subject) : undefined;
        const metadata: Record<string, string> = { ...input.metadata, [CHECKOUT_SESSION_KEY]: id };
        if (subject) Object.assign(metadata, { [SUBJECT_TYPE_KEY]: subject.type, [SUBJECT_ID_KEY]: subject.id });
        const session = await callProcessor('create the checkout session', () =>
          processor.checkout.sessions.create(
            {
              mode: input.mode,
              line_items: input.lineItems.map((l) => ({ price: l.processorPriceId, quantity: l.quantity })),
              success_url: input.successUrl,
              cancel_url: input.cancelUrl,
              client_reference_id: id,
              customer: customerId,
              customer_email: customerId ? undefined : (input.customerEmail ?? undefined),
              metadata,
              // The subscription or payment intent carries the subject too (for its history).
              ...(input.mode === 'subscription'
                ? { subscription_data: { metadata } }
                : { payment_intent_data: { metadata } }),
            },
            { idempotencyKey: namespacedKey(env, 'checkout.sessions.create', idempotencyKey ?? id) },
          ),
        );
        return await repo.finishCheckoutSession(
          deps.sql,
          id,
          {
            status: 'open',
            processorCheckoutSessionId: session.id,
            processorCustomerId: idOf(session.customer),
            url: session.url,
            paymentStatus: session.payment_status,
          },
          now(),
        );
      } catch (err) {
        await repo.finishCheckoutSession(deps.sql, id, { status: 'failed', lastError: failureText(err) }, now());
        throw err;
      }
    },
  };
}
