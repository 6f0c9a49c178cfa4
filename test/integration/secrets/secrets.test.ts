// Secrets as an admin sees them: create, list without values, read decrypted, update, soft delete,
// reserved secrets, expiry on the injected clock, values at rest, and the change notification.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
let admin: Record<string, string>;
beforeAll(async () => {
  t = await startTestApp();
  admin = { 'x-api-key': t.apiKey };
});
afterAll(() => t.close());

const create = (payload: Record<string, unknown>) =>
  t.request({ method: 'POST', url: '/api/secrets', headers: admin, payload });
const read = (key: string) => t.request({ method: 'GET', url: `/api/secrets/${key}`, headers: admin });
const update = (key: string, payload: Record<string, unknown>) =>
  t.request({ method: 'PUT', url: `/api/secrets/${key}`, headers: admin, payload });
const remove = (key: string) => t.request({ method: 'DELETE', url: `/api/secrets/${key}`, headers: admin });
const list = async () =>
  (await t.request({ method: 'GET', url: '/api/secrets', headers: admin })).json.secrets as any[];

describe('create and read', () => {
  it('creates a secret (201 with its id) and reads it back decrypted', async () => {
    const res = await create({ key: 'STRIPE_TOKEN', value: 'sk_live_123' });
    expect(res.statusCode).toBe(201);
    expect(res.json).toEqual({
      success: true,
      message: 'Secret STRIPE_TOKEN has been created successfully',
      id: expect.any(String),
    });
    const got = await read('STRIPE_TOKEN');
    expect(got.statusCode).toBe(200);
    expect(got.json).toEqual({ key: 'STRIPE_TOKEN', value: 'sk_live_123' });
  });

  it('works with an admin access token too', async () => {
    await create({ key: 'WITH_TOKEN', value: 'v' });
    const res = await t.request({
      method: 'GET',
      url: '/api/secrets/WITH_TOKEN',
      headers: bearer(await t.adminToken()),
    });
    expect(res.json).toEqual({ key: 'WITH_TOKEN', value: 'v' });
  });

  it('stores the value encrypted: the table never holds the plaintext', async () => {
    const value = 'plain-text-that-must-not-appear';
    await create({ key: 'AT_REST', value });
    const db = postgres(t.databaseUrl, { max: 1 });
    try {
      const [row] = await db<
        { value_ciphertext: string }[]
      >`select value_ciphertext from system.secrets where key = 'AT_REST'`;
      expect(row!.value_ciphertext).not.toContain(value);
      expect(row!.value_ciphertext).toMatch(/^v1:[0-9a-f]{12}:/);
      expect(Buffer.from(row!.value_ciphertext).includes(Buffer.from(value).toString('base64'))).toBe(false);
    } finally {
      await db.end();
    }
  });

  it('answers 409 SECRET_ALREADY_EXISTS for an active key', async () => {
    await create({ key: 'TWICE', value: 'a' });
    const res = await create({ key: 'TWICE', value: 'b' });
    expect(res.statusCode).toBe(409);
    expect(res.json).toMatchObject({
      error: 'SECRET_ALREADY_EXISTS',
      statusCode: 409,
      nextActions: expect.any(String),
    });
    expect((await read('TWICE')).json.value).toBe('a');
  });

  it.each([
    [{ key: 'lower_case', value: 'v' }],
    [{ key: 'HAS-DASH', value: 'v' }],
    [{ key: 'EMPTY_VALUE', value: '' }],
    [{ key: 'NO_VALUE' }],
    [{ key: 'BAD_EXPIRY', value: 'v', expiresAt: 'tomorrow' }],
  ])('rejects bad input %j with 400 VALIDATION_ERROR', async (payload) => {
    const res = await create(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject({ error: 'VALIDATION_ERROR', statusCode: 400 });
  });

  it('refuses the names of retired platform keys', async () => {
    const res = await create({ key: 'API_KEY_OLD_1', value: `ik_${'1'.repeat(64)}` });
    expect(res.statusCode).toBe(403);
    expect(res.json.error).toBe('FORBIDDEN');
  });

  it('answers 404 NOT_FOUND for an unknown key', async () => {
    const res = await read('NOPE');
    expect(res.statusCode).toBe(404);
    expect(res.json).toMatchObject({ error: 'NOT_FOUND', message: 'Secret not found: NOPE', statusCode: 404 });
  });
});

describe('list', () => {
  it('lists every secret newest first, inactive and reserved ones included, without values', async () => {
    await create({ key: 'LISTED', value: 'hidden-value' });
    const res = await t.request({ method: 'GET', url: '/api/secrets', headers: admin });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('hidden-value');
    const secrets = res.json.secrets as any[];
    expect(secrets[0]).toEqual({
      id: expect.any(String),
      key: 'LISTED',
      isActive: true,
      isReserved: false,
      lastUsedAt: null,
      expiresAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(secrets.find((s) => s.key === 'API_KEY')).toMatchObject({ isReserved: true, isActive: true });
    expect(Object.keys(secrets[0])).not.toContain('value');
  });

  it('records when a secret was last read', async () => {
    await create({ key: 'USED', value: 'v' });
    await read('USED');
    expect((await list()).find((s) => s.key === 'USED').lastUsedAt).toBe(t.clock.now().toISOString());
  });
});

describe('update', () => {
  it('changes the value', async () => {
    await create({ key: 'CHANGING', value: 'one' });
    const res = await update('CHANGING', { value: 'two' });
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({ success: true, message: 'Secret CHANGING has been updated successfully' });
    expect((await read('CHANGING')).json.value).toBe('two');
  });

  it('deactivates and reactivates', async () => {
    await create({ key: 'TOGGLED', value: 'v' });
    await update('TOGGLED', { isActive: false });
    expect((await read('TOGGLED')).statusCode).toBe(404);
    await update('TOGGLED', { isActive: true });
    expect((await read('TOGGLED')).json.value).toBe('v');
  });

  it('answers 404 for an unknown key and 403 FORBIDDEN for a reserved one', async () => {
    expect((await update('UNKNOWN_ONE', { value: 'x' })).json).toMatchObject({ error: 'NOT_FOUND', statusCode: 404 });
    const res = await update('API_KEY', { value: 'x' });
    expect(res.statusCode).toBe(403);
    expect(res.json).toMatchObject({ error: 'FORBIDDEN', message: 'Cannot update reserved secret: API_KEY' });
  });

  it('rejects an empty value', async () => {
    await create({ key: 'NOT_EMPTIED', value: 'v' });
    expect((await update('NOT_EMPTIED', { value: '' })).statusCode).toBe(400);
  });
});

describe('expiry', () => {
  it('a secret stops being readable when it expires on the clock, and null clears the expiry', async () => {
    const expiresAt = new Date(t.clock.now().getTime() + 60_000).toISOString();
    await create({ key: 'EXPIRING', value: 'v', expiresAt });
    expect((await read('EXPIRING')).statusCode).toBe(200);
    expect((await list()).find((s) => s.key === 'EXPIRING').expiresAt).toBe(expiresAt);
    t.clock.advance(61_000);
    expect((await read('EXPIRING')).statusCode).toBe(404);
    await update('EXPIRING', { expiresAt: null });
    expect((await read('EXPIRING')).json.value).toBe('v');
  });
});

describe('delete', () => {
  it('soft-deletes: the secret stays listed as inactive, cannot be read, and deleting again answers 200', async () => {
    await create({ key: 'DOOMED', value: 'v' });
    const res = await remove('DOOMED');
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual({ success: true, message: 'Secret DOOMED has been deleted successfully' });
    expect((await read('DOOMED')).statusCode).toBe(404);
    expect((await list()).find((s) => s.key === 'DOOMED')).toMatchObject({ isActive: false });
    expect((await remove('DOOMED')).statusCode).toBe(200);
  });

  it('creating a deleted key revives it in place with the new value', async () => {
    const first = await create({ key: 'PHOENIX', value: 'old' });
    await remove('PHOENIX');
    const again = await create({ key: 'PHOENIX', value: 'new' });
    expect(again.statusCode).toBe(201);
    expect(again.json.id).toBe(first.json.id);
    expect((await read('PHOENIX')).json.value).toBe('new');
  });

  it('answers 403 FORBIDDEN for reserved secrets and 404 NOT_FOUND for unknown ones', async () => {
    for (const key of ['API_KEY', 'ANON_KEY', 'JWT_PRIVATE_KEY']) {
      const res = await remove(key);
      expect(res.statusCode).toBe(403);
      expect(res.json).toMatchObject({
        error: 'FORBIDDEN',
        message: `Cannot delete reserved secret: ${key}`,
        statusCode: 403,
      });
    }
    const created = await create({ key: 'MADE_RESERVED', value: 'v', isReserved: true });
    expect(created.statusCode).toBe(201);
    expect((await remove('MADE_RESERVED')).statusCode).toBe(403);
    const res = await remove('NEVER_EXISTED');
    expect(res.statusCode).toBe(404);
    expect(res.json).toMatchObject({ error: 'NOT_FOUND', message: 'Secret not found: NEVER_EXISTED' });
  });
});

describe('change notification', () => {
  it('every write notifies plinth_secrets with the key, after it commits', async () => {
    const listener = postgres(t.databaseUrl, { max: 1 });
    const heard: string[] = [];
    let wake: () => void = () => {};
    await listener.listen('plinth_secrets', (key) => {
      heard.push(key);
      wake();
    });
    const next = () => new Promise<void>((resolve) => (wake = resolve));
    try {
      for (const write of [
        () => create({ key: 'NOTIFIED', value: 'a' }),
        () => update('NOTIFIED', { value: 'b' }),
        () => remove('NOTIFIED'),
      ]) {
        const heardIt = next();
        await write();
        await heardIt;
      }
      expect(heard).toEqual(['NOTIFIED', 'NOTIFIED', 'NOTIFIED']);
      // A refused write changes nothing and notifies nothing: the next one heard is the next write.
      await remove('API_KEY');
      const heardIt = next();
      await create({ key: 'AFTER_REFUSAL', value: 'a' });
      await heardIt;
      expect(heard.at(-1)).toBe('AFTER_REFUSAL');
      expect(heard).toHaveLength(4);
    } finally {
      await listener.end();
    }
  });
});
