// A payment processor on loopback for tests: a node:http server speaking the processor's REST API
// (form-encoded requests, JSON answers, Idempotency-Key replay, error objects) for the endpoints
// Plinth uses. Each secret key is an account of its own, so environments never share state.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Obj = Record<string, any>;

interface Account {
  id: string;
  objects: Map<string, Obj>;
  idempotent: Map<string, { status: number; body: Obj }>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  apiKey: string;
  idempotencyKey?: string;
  params: Obj;
}

export interface ProcessorPeer {
  /** The SDK's host/port/protocol, as Plinth's configuration variables. */
  env: Record<string, string>;
  requests: RecordedRequest[];
  /** The next `count` API calls (optionally only those whose path starts with `prefix`) answer 500. */
  failNext(count?: number, prefix?: string): void;
  /** Puts an object straight into an account, as if made in the processor's dashboard. */
  put(apiKey: string, object: Obj): Obj;
  get(apiKey: string, id: string): Obj | undefined;
  remove(apiKey: string, id: string): void;
  accountId(apiKey: string): string;
  close(): Promise<void>;
}

/** Parses `a[b][0][c]=v` form bodies into nested objects and arrays, as the processor does. */
export function parseForm(text: string): Obj {
  const root: Obj = {};
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const parts = rawKey.split('[').map((p) => p.replace(/]$/, ''));
    let node: any = root;
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      if (last) {
        node[part] = value;
        return;
      }
      const nextIsIndex = /^\d+$/.test(parts[i + 1]!);
      node[part] ??= nextIsIndex ? [] : {};
      node = node[part];
    });
  }
  return root;
}

const prefixes: Record<string, string> = {
  products: 'prod',
  prices: 'price',
  customers: 'cus',
  subscriptions: 'sub',
  'billing_portal/sessions': 'bps',
  'checkout/sessions': 'cs',
  webhook_endpoints: 'we',
  invoices: 'in',
  payment_intents: 'pi',
  refunds: 're',
};
const objectNames: Record<string, string> = {
  products: 'product',
  prices: 'price',
  customers: 'customer',
  subscriptions: 'subscription',
  'billing_portal/sessions': 'billing_portal.session',
  'checkout/sessions': 'checkout.session',
  webhook_endpoints: 'webhook_endpoint',
  invoices: 'invoice',
  payment_intents: 'payment_intent',
  refunds: 'refund',
};
const newId = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;
const bool = (v: unknown) => (v === undefined ? undefined : v === 'true');
const int = (v: unknown) => (v === undefined || v === '' ? undefined : Number(v));
const nullable = (v: unknown) => (v === '' ? null : v);

function build(resource: string, params: Obj, now: number, existing?: Obj): Obj {
  const base = existing ?? {
    id: newId(prefixes[resource]!),
    object: objectNames[resource],
    created: now,
    livemode: false,
    metadata: {},
  };
  const merged: Obj = { ...base };
  const metadata = params.metadata === '' ? {} : { ...base.metadata, ...(params.metadata ?? {}) };
  for (const [k, v] of Object.entries(metadata)) if (v === '') delete metadata[k];
  merged.metadata = metadata;
  switch (resource) {
    case 'products':
      return Object.assign(merged, {
        name: params.name ?? base.name,
        description: params.description !== undefined ? nullable(params.description) : (base.description ?? null),
        active: bool(params.active) ?? base.active ?? true,
        default_price: base.default_price ?? null,
      });
    case 'prices': {
      const recurring = params.recurring
        ? { interval: params.recurring.interval, interval_count: int(params.recurring.interval_count) ?? 1 }
        : (base.recurring ?? null);
      return Object.assign(merged, {
        product: params.product ?? base.product,
        currency: params.currency ?? base.currency,
        unit_amount: int(params.unit_amount) ?? base.unit_amount ?? null,
        unit_amount_decimal: params.unit_amount ?? base.unit_amount_decimal ?? null,
        active: bool(params.active) ?? base.active ?? true,
        lookup_key: params.lookup_key !== undefined ? nullable(params.lookup_key) : (base.lookup_key ?? null),
        tax_behavior: params.tax_behavior ?? base.tax_behavior ?? 'unspecified',
        billing_scheme: 'per_unit',
        type: recurring ? 'recurring' : 'one_time',
        recurring,
      });
    }
    case 'customers':
      return Object.assign(merged, {
        email: params.email ?? base.email ?? null,
        name: params.name ?? base.name ?? null,
      });
    case 'billing_portal/sessions':
      return Object.assign(merged, {
        customer: params.customer,
        return_url: params.return_url ?? null,
        configuration: params.configuration ?? 'bpc_default',
        url: `https://billing.processor.test/session/${merged.id}`,
      });
    case 'checkout/sessions':
      return Object.assign(merged, {
        mode: params.mode,
        customer: params.customer ?? null,
        customer_email: params.customer_email ?? null,
        client_reference_id: params.client_reference_id ?? null,
        success_url: params.success_url,
        cancel_url: params.cancel_url,
        line_items_input: params.line_items,
        status: 'open',
        payment_status: 'unpaid',
        url: `https://checkout.processor.test/pay/${merged.id}`,
      });
    case 'webhook_endpoints':
      return Object.assign(merged, {
        url: params.url ?? base.url,
        enabled_events: params.enabled_events ?? base.enabled_events,
        secret: base.secret ?? `whsec_${randomBytes(16).toString('hex')}`,
      });
    default:
      return Object.assign(merged, params);
  }
}

const processorError = (status: number, type: string, message: string, extra: Obj = {}) => ({
  status,
  body: { error: { type, message, ...extra } },
});

export async function startProcessorPeer(): Promise<ProcessorPeer> {
  const accounts = new Map<string, Account>();
  const requests: RecordedRequest[] = [];
  const failures: { prefix: string }[] = [];

  const accountOf = (apiKey: string): Account => {
    let account = accounts.get(apiKey);
    if (!account) {
      account = { id: `acct_${randomBytes(6).toString('hex')}`, objects: new Map(), idempotent: new Map() };
      accounts.set(apiKey, account);
    }
    return account;
  };

  function route(method: string, path: string, params: Obj, account: Account): { status: number; body: Obj } {
    const now = Math.floor(Date.now() / 1000);
    if (method === 'GET' && path === '/v1/account') {
      return { status: 200, body: { id: account.id, object: 'account', email: `owner@${account.id}.test` } };
    }
    const match =
      /^\/v1\/(products|prices|customers|subscriptions|billing_portal\/sessions|checkout\/sessions|webhook_endpoints|invoices|payment_intents|refunds)(?:\/([^/]+))?$/.exec(
        path,
      );
    if (!match) return processorError(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path})`);
    const [, resource, id] = match as unknown as [string, string, string | undefined];
    const kind = objectNames[resource]!;
    const all = [...account.objects.values()].filter((o) => o.object === kind);
    if (!id && method === 'GET') {
      const filtered = all.filter(
        (o) =>
          (params.product === undefined || o.product === params.product) &&
          (params.customer === undefined || o.customer === params.customer),
      );
      return {
        status: 200,
        body: { object: 'list', data: filtered.reverse(), has_more: false, url: `/v1/${resource}` },
      };
    }
    if (!id && method === 'POST') {
      if (resource === 'products' && !params.name)
        return processorError(400, 'invalid_request_error', 'Missing required param: name.', { param: 'name' });
      if (resource === 'prices') {
        const product = account.objects.get(params.product);
        if (!product)
          return processorError(400, 'invalid_request_error', `No such product: '${params.product}'`, {
            code: 'resource_missing',
            param: 'product',
          });
      }
      if (resource === 'billing_portal/sessions' && !account.objects.has(params.customer)) {
        return processorError(400, 'invalid_request_error', `No such customer: '${params.customer}'`, {
          code: 'resource_missing',
        });
      }
      const created = build(resource, params, now);
      account.objects.set(created.id, created);
      return { status: 200, body: created };
    }
    const existing = id ? account.objects.get(id) : undefined;
    if (!existing || existing.object !== kind) {
      return processorError(404, 'invalid_request_error', `No such ${kind}: '${id}'`, { code: 'resource_missing' });
    }
    if (method === 'GET') return { status: 200, body: existing };
    if (method === 'POST') {
      const updated = build(resource, params, now, existing);
      account.objects.set(updated.id, updated);
      return { status: 200, body: updated };
    }
    if (method === 'DELETE') {
      if (
        resource === 'products' &&
        [...account.objects.values()].some((o) => o.object === 'price' && o.product === id)
      ) {
        return processorError(
          400,
          'invalid_request_error',
          'This product cannot be deleted because it has one or more user-created prices.',
        );
      }
      account.objects.delete(existing.id);
      return { status: 200, body: { id: existing.id, object: kind, deleted: true } };
    }
    return processorError(405, 'invalid_request_error', 'Method not allowed');
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://processor.test');
    const method = req.method ?? 'GET';
    const params = parseForm(
      method === 'GET' || method === 'DELETE' ? url.search.slice(1) : Buffer.concat(chunks).toString('utf8'),
    );
    const apiKey = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
    requests.push({ method, path: url.pathname, apiKey, idempotencyKey, params });

    const send = ({ status, body }: { status: number; body: Obj }) => {
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': newId('req') });
      res.end(JSON.stringify(body));
    };
    if (!/^sk_(test|live)_\w+$/.test(apiKey)) {
      return send(processorError(401, 'invalid_request_error', `Invalid API Key provided: ${apiKey.slice(0, 8)}***`));
    }
    const failure = failures.findIndex((f) => url.pathname.startsWith(f.prefix));
    if (failure >= 0) {
      failures.splice(failure, 1);
      return send(processorError(500, 'api_error', 'Something went wrong on the processor.'));
    }
    const account = accountOf(apiKey);
    const replayKey = idempotencyKey && `${method} ${url.pathname} ${idempotencyKey}`;
    const replay = replayKey ? account.idempotent.get(replayKey) : undefined;
    if (replay) return send(replay);
    const answer = route(method, url.pathname, params, account);
    if (replayKey && answer.status < 500) account.idempotent.set(replayKey, answer);
    send(answer);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'api_error', message: String(err) } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    env: {
      PAYMENTS_PROCESSOR_HOST: '127.0.0.1',
      PAYMENTS_PROCESSOR_PORT: String(port),
      PAYMENTS_PROCESSOR_PROTOCOL: 'http',
      PAYMENTS_PROCESSOR_MAX_RETRIES: '0',
    },
    requests,
    failNext(count = 1, prefix = '/v1/') {
      for (let i = 0; i < count; i++) failures.push({ prefix });
    },
    put(apiKey, object) {
      const stored: Obj = { livemode: false, metadata: {}, created: Math.floor(Date.now() / 1000), ...object };
      accountOf(apiKey).objects.set(stored.id, stored);
      return stored;
    },
    get: (apiKey, id) => accountOf(apiKey).objects.get(id),
    remove: (apiKey, id) => void accountOf(apiKey).objects.delete(id),
    accountId: (apiKey) => accountOf(apiKey).id,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
