// The only way Plinth talks to Razorpay: the official `razorpay` SDK, one client per key pair,
// its HTTP instance pointed at the configured host (Razorpay's own API unless told; a loopback
// peer in tests). Razorpay's failures become AppErrors; its signature rules live here too.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../../core/errors.js';
import type { Environment } from '../processor.js';

/** A Razorpay object as the API returns it (snake_case JSON). */
// biome-ignore lint/suspicious/noExplicitAny: Razorpay objects are untyped JSON read field by field
export type RzpObject = Record<string, any>;
export interface RzpList {
  entity: 'collection';
  count: number;
  items: RzpObject[];
}

/** The part of the SDK Plinth calls (its own typings cover more, and not `api.rq`). */
export interface RazorpayClient {
  orders: { create(p: RzpObject): Promise<RzpObject>; all(p?: RzpObject): Promise<RzpList> };
  subscriptions: {
    create(p: RzpObject): Promise<RzpObject>;
    fetch(id: string): Promise<RzpObject>;
    all(p?: RzpObject): Promise<RzpList>;
    cancel(id: string, atCycleEnd?: boolean): Promise<RzpObject>;
    pause(id: string, p?: RzpObject): Promise<RzpObject>;
    resume(id: string, p?: RzpObject): Promise<RzpObject>;
  };
  items: {
    create(p: RzpObject): Promise<RzpObject>;
    edit(id: string, p: RzpObject): Promise<RzpObject>;
    all(p?: RzpObject): Promise<RzpList>;
  };
  plans: { create(p: RzpObject): Promise<RzpObject>; all(p?: RzpObject): Promise<RzpList> };
  customers: { all(p?: RzpObject): Promise<RzpList> };
  payments: { all(p?: RzpObject): Promise<RzpList> };
  api: { rq: { defaults: { baseURL?: string; timeout?: number } } };
}

export interface RazorpayKeys {
  keyId: string;
  keySecret: string;
}

/** Key ids carry their environment: rzp_test_… or rzp_live_…. */
export const keyIdPrefix = (env: Environment) => `rzp_${env}_`;

export function createRazorpayClients(settings: { baseUrl: string; timeoutMs: number }) {
  const clients = new Map<string, RazorpayClient>();
  // The SDK (and axios) is loaded with the first client, not at start.
  return async (keys: RazorpayKeys): Promise<RazorpayClient> => {
    const cacheKey = `${keys.keyId}\n${keys.keySecret}`;
    let client = clients.get(cacheKey);
    if (!client) {
      const { default: RazorpaySdk } = await import('razorpay');
      client = new RazorpaySdk({ key_id: keys.keyId, key_secret: keys.keySecret }) as unknown as RazorpayClient;
      // The SDK fixes https://api.razorpay.com in its constructor; its axios instance is ours to point.
      client.api.rq.defaults.baseURL = settings.baseUrl;
      client.api.rq.defaults.timeout = settings.timeoutMs;
      clients.set(cacheKey, client);
    }
    return client;
  };
}

interface RzpError {
  statusCode: number;
  error?: { code?: string; description?: string; field?: string | null; reason?: string };
}
const isRzpError = (err: unknown): err is RzpError =>
  typeof err === 'object' && err !== null && typeof (err as { statusCode?: unknown }).statusCode === 'number';

/**
 * Runs one Razorpay call. Razorpay refusing the input is the caller's 400 (with the field it
 * named); a rejected key is PAYMENT_CONFIG_INVALID; its rate limit is 429; anything else (5xx,
 * network) is a 502 saying nothing was changed on Plinth's side.
 */
export async function callRazorpay<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!isRzpError(err)) {
      // A network failure reaches the SDK's error normaliser without a response and fails there.
      throw new AppError('UPSTREAM_FAILURE', `Razorpay could not be reached to ${what}.`, {
        cause: err,
        nextActions: 'Check that the server can reach Razorpay (RAZORPAY_API_BASE_URL), then retry.',
      });
    }
    const description = err.error?.description ?? `Razorpay answered ${err.statusCode}.`;
    if (err.statusCode === 401 || err.statusCode === 403) {
      throw new AppError('PAYMENT_CONFIG_INVALID', `Razorpay rejected the keys: ${description}`, {
        cause: err,
        nextActions: 'Store a valid key pair with PUT /api/payments/razorpay/{environment}/config.',
      });
    }
    if (err.statusCode === 429) {
      throw new AppError('RATE_LIMITED', `Razorpay rate limit reached: ${description}`, {
        cause: err,
        nextActions: 'Wait a moment and retry.',
      });
    }
    if (err.statusCode >= 400 && err.statusCode < 500) {
      throw new AppError('VALIDATION_ERROR', `Razorpay refused to ${what}: ${description}`, {
        cause: err,
        details: err.error?.field ? { field: err.error.field } : undefined,
        nextActions: err.error?.field
          ? `Check ${err.error.field}; GET /api/payments/razorpay/{environment}/catalog lists the items and plans.`
          : 'Check the request against Razorpay’s rules and retry.',
      });
    }
    throw new AppError('UPSTREAM_FAILURE', `Razorpay failed to ${what}: ${description}`, {
      cause: err,
      nextActions: 'Retry the request.',
    });
  }
}

const HEX_SIGNATURE = /^[0-9a-f]{64}$/i;

/**
 * Razorpay's documented signature rule: lowercase hex HMAC-SHA256 of `message` with `secret`,
 * compared in constant time. Anything but 64 hex characters is refused without computing.
 */
export function signatureMatches(secret: string, message: string | Buffer, signature: string): boolean {
  if (!HEX_SIGNATURE.test(signature)) return false;
  const expected = createHmac('sha256', secret).update(message).digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

/** Checkout's payment signature for an order: HMAC of "<order id>|<payment id>". */
export const orderSignatureMatches = (secret: string, orderId: string, paymentId: string, signature: string) =>
  signatureMatches(secret, `${orderId}|${paymentId}`, signature);

/** Checkout's payment signature for a subscription: HMAC of "<payment id>|<subscription id>". */
export const subscriptionSignatureMatches = (
  secret: string,
  paymentId: string,
  subscriptionId: string,
  signature: string,
) => signatureMatches(secret, `${paymentId}|${subscriptionId}`, signature);

/** Razorpay's Unix seconds as a Date (null stays null). */
export const fromSeconds = (s: unknown): Date | null => (typeof s === 'number' && s > 0 ? new Date(s * 1000) : null);

/** Notes come as an object, or as [] when empty (PHP's habit); values as strings. */
export function notesOf(notes: unknown): Record<string, string> {
  if (notes === null || typeof notes !== 'object' || Array.isArray(notes)) return {};
  return Object.fromEntries(Object.entries(notes as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
}
