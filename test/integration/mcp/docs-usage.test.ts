// The routes the official MCP server calls besides the tools' own: agent docs per topic (public,
// Markdown from docs/agents/), the MCP usage report (recorded, read back by admins), and the
// health version that keeps its tools visible, with the API reference page moved off /api/docs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
const admin = () => ({ 'x-api-key': t.apiKey });

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('agent docs', () => {
  it('lists every topic with the endpoint that answers it', async () => {
    const res = await t.request({ method: 'GET', url: '/api/docs' });
    expect(res.statusCode).toBe(200);
    expect(res.json).toEqual(
      expect.arrayContaining([
        { type: 'instructions', filename: 'instructions.md', endpoint: '/api/docs/instructions' },
        { type: 'db-sdk-typescript', filename: 'db.md', endpoint: '/api/docs/db/typescript' },
        { type: 'storage-rest-api', filename: 'storage.md', endpoint: '/api/docs/storage/rest-api' },
      ]),
    );
    for (const { endpoint } of res.json as { endpoint: string }[]) {
      const doc = await t.request({ method: 'GET', url: endpoint });
      expect(doc.statusCode, endpoint).toBe(200);
      expect(doc.json.content, endpoint).toMatch(/^# /);
    }
  });

  it('answers a type and a feature/language as {type, content} Markdown without credentials', async () => {
    const byType = await t.request({ method: 'GET', url: '/api/docs/functions-sdk' });
    expect(byType.json.type).toBe('functions-sdk');
    expect(byType.json.content).toContain('plinth functions deploy');
    const sdk = await t.request({ method: 'GET', url: '/api/docs/auth/rest-api' });
    expect(sdk.json).toMatchObject({ type: 'auth-rest-api', content: expect.stringContaining('/api/auth/sessions') });
  });

  it.each(['/api/docs/nope', '/api/docs/db/swift', '/api/docs/payments/kotlin', '/api/docs/constructor'])(
    '%s is 404 DOCS_NOT_FOUND with the topics to use instead',
    async (url) => {
      const res = await t.request({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
      expect(res.json).toMatchObject({ error: 'DOCS_NOT_FOUND', message: 'Documentation not found', statusCode: 404 });
      expect(res.json.nextActions).toContain('GET /api/docs');
    },
  );

  it('the API reference page moved to /api/reference; /api/openapi.json stays', async () => {
    const page = await t.request({ method: 'GET', url: '/api/reference/' });
    expect(page.headers['content-type']).toContain('text/html');
    const doc = await t.request({ method: 'GET', url: '/api/openapi.json' });
    expect(Object.keys(doc.json.paths)).toEqual(expect.arrayContaining(['/api/docs/{topic}', '/api/usage/mcp']));
  });
});

describe('MCP usage', () => {
  it('records reported calls and lists the newest of one outcome', async () => {
    for (const [tool_name, success] of [
      ['run-raw-sql', true],
      ['fetch-docs', true],
      ['bulk-upsert', false],
    ] as const) {
      const res = await t.request({
        method: 'POST',
        url: '/api/usage/mcp',
        headers: admin(),
        payload: { tool_name, success, timestamp: '2020-01-01T00:00:00Z' },
      });
      expect(res.json).toEqual({ success: true });
    }
    await t.request({
      method: 'POST',
      url: '/api/usage/mcp',
      headers: admin(),
      payload: { tool_name: 'get-anon-key' },
    });
    const ok = await t.request({ method: 'GET', url: '/api/usage/mcp', headers: admin() });
    expect(ok.json.records.map((r: { tool_name: string }) => r.tool_name)).toEqual([
      'get-anon-key',
      'fetch-docs',
      'run-raw-sql',
    ]);
    expect(ok.json.records[1].created_at).not.toBe('2020-01-01T00:00:00.000Z');
    const failed = await t.request({ method: 'GET', url: '/api/usage/mcp?success=false&limit=1', headers: admin() });
    expect(failed.json.records).toEqual([{ tool_name: 'bulk-upsert', success: false, created_at: expect.any(String) }]);
  });

  it('refuses a report without tool_name, and anonymous callers', async () => {
    const missing = await t.request({ method: 'POST', url: '/api/usage/mcp', headers: admin(), payload: {} });
    expect(missing.statusCode).toBe(400);
    expect(missing.json.message).toContain('tool_name is required');
    const anon = await t.request({ method: 'POST', url: '/api/usage/mcp', payload: { tool_name: 'x' } });
    expect(anon.statusCode).toBe(401);
  });
});

describe('health', () => {
  it('reports the compatibility version the MCP server gates on, and Plinth’s own version apart', async () => {
    const res = await t.request({ method: 'GET', url: '/api/health' });
    expect(res.json).toMatchObject({ status: 'ok', version: '2.3.1', plinthVersion: '0.1.0', service: 'Plinth' });
  });
});
