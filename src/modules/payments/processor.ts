// The only way Plinth talks to the payment processor: the official SDK, one client per secret key,
// pointed at the configured host (a loopback fake in tests). Processor failures become AppErrors.
import type Stripe from 'stripe';
import { AppError } from '../../core/errors.js';
import type { Config } from '../../config.js';

export type Processor = Stripe;
export type Environment = 'test' | 'live';

export function createProcessorClients(settings: Config['paymentsProcessor']) {
  const clients = new Map<string, Processor>();
  // The SDK (a few MB resident) is loaded with the first client, not at start.
  return async (secretKey: string): Promise<Processor> => {
    let client = clients.get(secretKey);
    if (!client) {
      const { default: StripeSdk } = await import('stripe');
      client = new StripeSdk(secretKey, {
        host: settings.host,
        port: settings.port,
        protocol: settings.protocol,
        maxNetworkRetries: settings.maxNetworkRetries,
        telemetry: false,
      });
      clients.set(secretKey, client);
    }
    return client;
  };
}

const isProcessorError = (
  err: unknown,
): err is { type: string; statusCode?: number; code?: string; message: string; param?: string } =>
  typeof err === 'object' &&
  err !== null &&
  typeof (err as { type?: unknown }).type === 'string' &&
  (err as { type: string }).type.startsWith('Stripe');

/**
 * Runs one processor call. The processor refusing the caller's input is the caller's 4xx;
 * anything else (5xx, network, a rejected key) is a 502 so the client knows nothing was changed.
 */
export async function callProcessor<T>(what: string, call: () => Promise<T>, notFound?: () => AppError): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!isProcessorError(err)) throw err;
    if (err.statusCode === 404 && notFound) throw notFound();
    if (err.type === 'StripeInvalidRequestError' && err.statusCode !== undefined && err.statusCode < 500) {
      throw new AppError('VALIDATION_ERROR', `The processor refused to ${what}: ${err.message}`, {
        cause: err,
        details: err.param ? { field: err.param } : undefined,
      });
    }
    throw new AppError('UPSTREAM_FAILURE', `The processor failed to ${what}; nothing was changed.`, {
      cause: err,
      nextActions: 'Retry the request; with the same idempotencyKey it is safe to repeat.',
    });
  }
}

/** Caller idempotency keys, namespaced so one key never collides across environments or operations. */
export const namespacedKey = (environment: Environment, operation: string, key: string | undefined) =>
  key === undefined ? undefined : `svc:${environment}:${operation}:${key}`;

export const toDate = (seconds: number | null | undefined): Date | null =>
  seconds === null || seconds === undefined ? null : new Date(seconds * 1000);

/** The id of an expandable processor reference (an id string or the expanded object). */
export const idOf = (ref: string | { id: string } | null | undefined): string | null =>
  ref == null ? null : typeof ref === 'string' ? ref : ref.id;
