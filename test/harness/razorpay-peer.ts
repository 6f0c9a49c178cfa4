// Razorpay on loopback for tests: a node:http server speaking Razorpay's REST API (/v1, basic
// auth key_id:key_secret, JSON bodies and answers, count/skip collections, its error objects) for
// the endpoints Plinth uses. Each key id is an account of its own, so environments never share state.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Obj = Record<string, any>;

interface Account {
  secret: string;
  objects: Map<string, Obj>;
}

export interface RazorpayRequest {
  method: string;
  path: string;
  keyId: string;
  body: Obj | undefined;
}

export interface RazorpayPeer {
  /** RAZORPAY_API_BASE_URL for Plinth's configuration. */
  env: Record<string, string>;
  baseUrl: string;
  requests: RazorpayRequest[];
  /** Opens an account that accepts this key pair. */
  addAccount(keyId: string, keySecret: string): void;
  /** The next `count` calls (optionally only those whose path starts with `prefix`) answer 500. */
  failNext(count?: number, prefix?: string): void;
  /** Puts an object straight into an account, as if made in Razorpay's dashboard. */
  put(keyId: string, object: Obj): Obj;
  get(keyId: string, id: string): Obj | undefined;
  close(): Promise<void>;
}

const prefixes: Record<string, { prefix: string; entity: string }> = {
  orders: { prefix: 'order', entity: 'order' },
  subscriptions: { prefix: 'sub', entity: 'subscription' },
  items: { prefix: 'item', entity: 'item' },
  plans: { prefix: 'plan', entity: 'plan' },
  customers: { prefix: 'cust', entity: 'customer' },
  payments: { prefix: 'pay', entity: 'payment' },
};
const entityCollections = Object.fromEntries(Object.entries(prefixes).map(([c, p]) => [p.entity, c]));

const newId = (prefix: string) => `${prefix}_${randomBytes(7).toString('base64url').replace(/[-_]/g, 'x')}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

class RzpFailure extends Error {
  constructor(
    readonly status: number,
    readonly description: string,
    readonly field: string | null = null,
    readonly code = 'BAD_REQUEST_ERROR',
  ) {
    super(description);
  }
}

const required = (body: Obj, field: string) => {
  if (body[field] === undefined || body[field] === null || body[field] === '') {
    throw new RzpFailure(400, `The ${field} field is required.`, field);
  }
  return body[field];
};

export async function startRazorpayPeer(): Promise<RazorpayPeer> {
  const accounts = new Map<string, Account>();
  const requests: RazorpayRequest[] = [];
  let failures: { count: number; prefix: string } = { count: 0, prefix: '' };

  const collectionOf = (account: Account, collection: string) =>
    [...account.objects.values()].filter((o) => entityCollections[o.entity] === collection);

  function find(account: Account, collection: string, id: string): Obj {
    const found = account.objects.get(id);
    if (!found || entityCollections[found.entity] !== collection) {
      throw new RzpFailure(400, 'The id provided does not exist', 'id');
    }
    return found;
  }

  function create(account: Account, collection: string, body: Obj): Obj {
    const { prefix, entity } = prefixes[collection]!;
    const object: Obj = { id: newId(prefix), entity, created_at: nowSeconds(), notes: body.notes ?? [] };
    switch (collection) {
      case 'orders': {
        const amount = Number(required(body, 'amount'));
        if (!Number.isInteger(amount) || amount < 100) {
          throw new RzpFailure(400, 'The amount must be atleast INR 1.00', 'amount');
        }
        Object.assign(object, {
          amount,
          amount_paid: 0,
          amount_due: amount,
          currency: required(body, 'currency'),
          receipt: body.receipt ?? null,
          offer_id: null,
          status: 'created',
          attempts: 0,
        });
        break;
      }
      case 'subscriptions': {
        const plan = account.objects.get(required(body, 'plan_id'));
        if (plan?.entity !== 'plan') throw new RzpFailure(400, 'The id provided does not exist', 'plan_id');
        if (body.total_count === undefined && body.end_at === undefined) {
          throw new RzpFailure(400, 'The total count or end at field is required.', 'total_count');
        }
        Object.assign(object, {
          plan_id: plan.id,
          customer_id: null,
          status: 'created',
          current_start: null,
          current_end: null,
          ended_at: null,
          quantity: body.quantity ?? 1,
          charge_at: body.start_at ?? null,
          start_at: body.start_at ?? null,
          end_at: body.end_at ?? null,
          auth_attempts: 0,
          total_count: body.total_count ?? null,
          paid_count: 0,
          customer_notify: body.customer_notify ?? true,
          expire_by: body.expire_by ?? null,
          short_url: `https://rzp.io/i/${randomBytes(4).toString('hex')}`,
          has_scheduled_changes: false,
          change_scheduled_at: null,
          source: 'api',
          offer_id: body.offer_id ?? null,
          remaining_count: body.total_count ?? null,
        });
        break;
      }
      case 'items':
        Object.assign(object, {
          name: required(body, 'name'),
          description: body.description ?? null,
          amount: Number(required(body, 'amount')),
          unit_amount: Number(body.amount),
          currency: required(body, 'currency'),
          type: 'invoice',
          active: true,
        });
        break;
      case 'plans': {
        const item = required(body, 'item') as Obj;
        if (!['daily', 'weekly', 'monthly', 'yearly'].includes(required(body, 'period'))) {
          throw new RzpFailure(400, 'The period is invalid.', 'period');
        }
        Object.assign(object, {
          period: body.period,
          interval: Number(required(body, 'interval')),
          item: {
            id: newId('item'),
            active: true,
            name: required(item, 'name'),
            description: item.description ?? null,
            amount: Number(required(item, 'amount')),
            unit_amount: Number(item.amount),
            currency: required(item, 'currency'),
            type: 'plan',
          },
        });
        break;
      }
      default:
        throw new RzpFailure(400, 'The requested URL was not found on the server.', null);
    }
    account.objects.set(object.id, object);
    return object;
  }

  function act(account: Account, id: string, action: string, body: Obj | undefined): Obj {
    const s = find(account, 'subscriptions', id);
    if (action === 'cancel') {
      if (['cancelled', 'completed', 'expired'].includes(s.status)) {
        throw new RzpFailure(400, 'Subscription is not cancellable in cancelled status.', null);
      }
      if (body?.cancel_at_cycle_end === 1) Object.assign(s, { has_scheduled_changes: true });
      else Object.assign(s, { status: 'cancelled', ended_at: nowSeconds() });
    } else if (action === 'pause') {
      if (s.status !== 'active') throw new RzpFailure(400, 'Subscription can only be paused in active state.', null);
      Object.assign(s, { status: 'paused', pause_initiated_by: 'self' });
    } else if (action === 'resume') {
      if (s.status !== 'paused') throw new RzpFailure(400, 'Subscription is not paused.', null);
      Object.assign(s, { status: 'active', pause_initiated_by: null });
    } else {
      throw new RzpFailure(400, 'The requested URL was not found on the server.', null);
    }
    return s;
  }

  function route(account: Account, method: string, path: string, query: URLSearchParams, body: Obj | undefined): Obj {
    const parts = path
      .replace(/^\/v1\//, '')
      .split('/')
      .filter(Boolean);
    const [collection, id, action] = parts;
    if (!collection || !prefixes[collection])
      throw new RzpFailure(400, 'The requested URL was not found on the server.');
    if (method === 'GET' && id === undefined) {
      const count = Math.min(Number(query.get('count') ?? 10), 100);
      const skip = Number(query.get('skip') ?? 0);
      const all = collectionOf(account, collection).sort((a, b) => b.created_at - a.created_at);
      const items = all.slice(skip, skip + count);
      return { entity: 'collection', count: items.length, items };
    }
    if (method === 'GET' && id !== undefined && action === undefined) return find(account, collection, id);
    if (method === 'POST' && id === undefined) return create(account, collection, body ?? {});
    if (method === 'PATCH' && collection === 'items' && id !== undefined) {
      const item = find(account, 'items', id);
      for (const key of ['name', 'description', 'amount', 'currency', 'active']) {
        if (body?.[key] !== undefined) item[key] = body[key];
      }
      if (body?.amount !== undefined) item.unit_amount = body.amount;
      return item;
    }
    if (method === 'POST' && collection === 'subscriptions' && id !== undefined && action) {
      return act(account, id, action, body);
    }
    throw new RzpFailure(400, 'The requested URL was not found on the server.');
  }

  function authenticate(req: IncomingMessage): { keyId: string; account: Account } {
    const header = req.headers.authorization ?? '';
    const decoded = header.startsWith('Basic ') ? Buffer.from(header.slice(6), 'base64').toString('utf8') : '';
    const [keyId = '', secret = ''] = decoded.split(':');
    const account = accounts.get(keyId);
    if (!account || account.secret !== secret) {
      throw new RzpFailure(401, 'Authentication failed', null);
    }
    return { keyId, account };
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://peer');
      const send = (status: number, payload: Obj) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      try {
        const text = Buffer.concat(chunks).toString('utf8');
        const body = text ? (JSON.parse(text) as Obj) : undefined;
        const { keyId, account } = authenticate(req);
        requests.push({ method: req.method ?? 'GET', path: url.pathname, keyId, body });
        if (failures.count > 0 && url.pathname.startsWith(failures.prefix)) {
          failures.count--;
          throw new RzpFailure(
            500,
            'We are facing some trouble completing your request at the moment.',
            null,
            'SERVER_ERROR',
          );
        }
        send(200, route(account, req.method ?? 'GET', url.pathname, url.searchParams, body));
      } catch (err) {
        const f = err instanceof RzpFailure ? err : new RzpFailure(500, String(err), null, 'SERVER_ERROR');
        send(f.status, {
          error: {
            code: f.code,
            description: f.description,
            source: 'NA',
            step: 'NA',
            reason: 'NA',
            metadata: {},
            field: f.field,
          },
        });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const accountOf = (keyId: string) => {
    const account = accounts.get(keyId);
    if (!account) throw new Error(`no peer account for ${keyId}`);
    return account;
  };

  return {
    env: { RAZORPAY_API_BASE_URL: baseUrl },
    baseUrl,
    requests,
    addAccount: (keyId, keySecret) => void accounts.set(keyId, { secret: keySecret, objects: new Map() }),
    failNext: (count = 1, prefix = '') => {
      failures = { count, prefix };
    },
    put: (keyId, object) => {
      accountOf(keyId).objects.set(object.id, object);
      return object;
    },
    get: (keyId, id) => accountOf(keyId).objects.get(id),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
