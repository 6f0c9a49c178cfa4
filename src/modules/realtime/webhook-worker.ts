// The webhook delivery loop of one server. Each tick claims the deliveries due at the injected
// clock's time (a lease, so no other server attempts them meanwhile), POSTs each message payload
// to its URL with its channel, event, sender and timestamp signed with it (webhook-signature.ts), and records the outcome: 2xx is delivered; anything else is tried again
// after an exponential backoff (1 s, 2 s, 4 s, … capped at an hour) until MAX_ATTEMPTS. The queue
// is in PostgreSQL, so a restart loses nothing: an attempt cut short is retried once its lease ends.
// Queuing a delivery sends NOTIFY realtime_webhook, which wakes the loop at once; the poll remains
// for retries that come due and for signals missed while the LISTEN connection was down.
import { OutboundRefused } from '../../core/address-policy.js';
import { epochSeconds } from '../../core/clock.js';
import { allowedOutboundOrigins, outboundFetcher } from '../../platform/outbound-http.js';
import type { Deps } from '../../deps.js';
import * as repo from './webhook-deliveries.repo.js';
import { signedHeaders, signingSecret } from './webhook-signature.js';

/** Attempts in all before a delivery is given up (an admin may retry it). */
export const MAX_ATTEMPTS = 8;
const BACKOFF_BASE_MS = 1_000;
const BACKOFF_MAX_MS = 60 * 60 * 1000;
/** How long one POST may take. */
const ATTEMPT_TIMEOUT_MS = 10_000;
/** How long a claim keeps other servers off a delivery (beyond the POST's timeout). */
const LEASE_MS = ATTEMPT_TIMEOUT_MS + 50_000;
const BATCH = 50;
/** The NOTIFY channel on which queued deliveries announce themselves. */
export const WEBHOOK_WAKE_CHANNEL = 'realtime_webhook';

/** The wait after the `attempts`-th failed attempt. */
export const backoffMs = (attempts: number) => Math.min(BACKOFF_BASE_MS * 2 ** (attempts - 1), BACKOFF_MAX_MS);

export interface WebhookTickReport {
  delivered: number;
  failed: number;
}

export interface WebhookWorker {
  /** Attempts what is due now; resolves once those attempts are recorded. */
  tick(): Promise<WebhookTickReport>;
  /** Ticks every `pollMs` of real time, and whenever a delivery is queued (0: never), until stop(). */
  start(pollMs: number): Promise<void>;
  stop(): Promise<void>;
}

export function createWebhookWorker(
  deps: Pick<Deps, 'sql' | 'clock' | 'keyring' | 'config'>,
  onError: (err: unknown) => void = () => {},
): WebhookWorker {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> = Promise.resolve();
  let queued = false;
  /** Receivers are reached under the outbound address policy (no private addresses unless allowed). */
  const fetchOutbound = outboundFetcher(allowedOutboundOrigins(deps.config));
  let wakeSubscription: { unlisten(): Promise<void> } | null = null;

  /** Runs one more tick after the current one; wakes that arrive meanwhile share it. */
  const scheduleTick = () => {
    if (queued) return;
    queued = true;
    running = running.then(() => {
      queued = false;
      return tick().catch(onError);
    });
  };

  async function attempt(claim: repo.ClaimedDelivery, secret: string): Promise<boolean> {
    const body = JSON.stringify(claim.payload ?? {});
    const sentAt = deps.clock.now();
    let status: number | null = null;
    let error: string;
    let refused = false;
    try {
      const res = await fetchOutbound(claim.url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        headers: {
          'content-type': 'application/json',
          'x-svc-delivery-id': claim.id,
          ...signedHeaders(secret, epochSeconds(sentAt), {
            messageId: claim.messageId,
            channel: claim.channelName,
            event: claim.eventName,
            senderType: claim.senderType,
            senderId: claim.senderId,
            body,
          }),
        },
        body,
      });
      await res.body?.cancel().catch(() => {});
      status = res.status;
      if (res.ok) return repo.recordDelivered(deps.sql, claim, res.status, deps.clock.now());
      error = `HTTP ${res.status}`;
    } catch (err) {
      error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      // The address policy refused the URL (nothing was sent): trying again would not change that.
      refused = err instanceof OutboundRefused;
    }
    const now = deps.clock.now();
    await repo.recordFailure(deps.sql, claim, {
      status,
      error: error.slice(0, 1000),
      nextAttemptAt: new Date(now.getTime() + backoffMs(claim.attempts)),
      final: refused || claim.attempts >= MAX_ATTEMPTS,
    });
    return false;
  }

  async function tick(): Promise<WebhookTickReport> {
    const now = deps.clock.now();
    const claims = await repo.claimDue(deps.sql, now, new Date(now.getTime() + LEASE_MS), BATCH);
    if (claims.length === 0) return { delivered: 0, failed: 0 };
    const secret = await signingSecret(deps);
    const outcomes = await Promise.all(
      claims.map((claim) =>
        attempt(claim, secret).catch((err) => {
          onError(err);
          return false;
        }),
      ),
    );
    const delivered = outcomes.filter(Boolean).length;
    return { delivered, failed: outcomes.length - delivered };
  }

  return {
    tick,
    async start(pollMs) {
      if (pollMs <= 0 || timer) return;
      timer = setInterval(scheduleTick, pollMs);
      timer.unref();
      wakeSubscription = await deps.sql.listen(WEBHOOK_WAKE_CHANNEL, scheduleTick);
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await wakeSubscription?.unlisten().catch(() => {});
      wakeSubscription = null;
      await running;
    },
  };
}
