// What every refusal at capacity looks like to a client: 503 SERVICE_UNAVAILABLE, Retry-After, a
// request id and the spec's error shape.
import { expect } from 'vitest';

export async function expectRefusal(res: Response): Promise<void> {
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('1');
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('x-request-id')).toBeTruthy();
  expect(await res.json()).toEqual({
    error: 'SERVICE_UNAVAILABLE',
    message: expect.stringMatching(/at capacity/),
    statusCode: 503,
    nextActions: expect.stringMatching(/Retry-After/),
  });
}

/**
 * Lifts the anonymous share of the pool (DB_POOL_ANON_SHARE, default half) for tests that fill
 * the whole pool and its queue with anonymous calls: they test admission, not the shares.
 */
export const WHOLE_POOL_FOR_ANON = { DB_POOL_ANON_SHARE: '1000' };
