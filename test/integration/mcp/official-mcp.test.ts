// The unmodified official MCP server (@insforge/mcp, local stdio mode) driven through
// @modelcontextprotocol/sdk's client against a listening Plinth: the tool calls issue 20 fixed
// (backend metadata, anon key, raw SQL creating/altering/dropping a table, table schema, bulk
// upsert from a local CSV file), the bucket tools, Plinth's own docs (fetch-docs, fetch-sdk-docs,
// which the health version 2.3.1 keeps visible), container logs, and the usage it reports back.
import { mkdtemp, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

const MCP_BIN = fileURLToPath(new URL('../../../node_modules/@insforge/mcp/dist/index.js', import.meta.url));

let t: TestApp;
let client: Client;
let base: string;

/** Calls a tool; answers its text, failing the test when the tool reports an error. */
async function tool(name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    content: { type: string; text: string }[];
  };
  const text = result.content.map((c) => c.text).join('\n');
  expect(result.isError ?? false, `${name}: ${text}`).toBe(false);
  return text;
}

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  client = new Client({ name: 'plinth-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [MCP_BIN, '--api_key', t.apiKey, '--api_base_url', base],
      stderr: 'ignore',
    }),
  );
}, 30_000);
afterAll(async () => {
  await client?.close();
  await t.close();
});

describe('the official MCP server against Plinth', () => {
  it('lists the tools this issue serves', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((x) => x.name);
    for (const name of [
      'get-backend-metadata',
      'get-anon-key',
      'run-raw-sql',
      'get-table-schema',
      'bulk-upsert',
      'create-bucket',
      'fetch-docs',
      'fetch-sdk-docs',
      'get-container-logs',
    ])
      expect(names).toContain(name);
  });

  it('get-backend-metadata and get-anon-key', async () => {
    expect(await tool('get-backend-metadata')).toMatch(/Backend metadata:[\s\S]*"database"/);
    expect(await tool('get-anon-key')).toContain(t.anonKey);
  });

  it('run-raw-sql creates and alters a table, get-table-schema describes it, bulk-upsert fills it, and it drops', async () => {
    await tool('run-raw-sql', { query: 'create table todos (id int primary key, title text not null)' });
    await tool('run-raw-sql', { query: 'alter table todos add column done boolean not null default false' });
    const schema = await tool('get-table-schema', { tableName: 'todos' });
    expect(schema).toMatch(/"rlsEnabled": true/);
    expect(schema).toContain('project_admin_all');

    const dir = await mkdtemp(path.join(tmpdir(), 'plinth-mcp-'));
    const file = path.join(dir, 'todos.csv');
    await writeFile(file, 'id,title,done\n1,Write tests,true\n2,Ship,false\n');
    expect(await tool('bulk-upsert', { table: 'todos', filePath: file, upsertKey: 'id' })).toMatch(/2/);
    const rows = await tool('run-raw-sql', { query: 'select id, title, done from todos where id = $1', params: [1] });
    expect(rows).toContain('Write tests');

    await tool('run-raw-sql', { query: 'drop table todos' });
    const [gone] = await t.deps.sql`select to_regclass('public.todos') is null as gone`;
    expect(gone!.gone).toBe(true);
  });

  it('create-bucket, list-buckets, delete-bucket', async () => {
    await tool('create-bucket', { bucketName: 'agent-files', isPublic: false });
    expect(await tool('list-buckets')).toContain('agent-files');
    await tool('delete-bucket', { bucketName: 'agent-files' });
    expect(await tool('list-buckets')).not.toContain('agent-files');
  });

  it('fetch-docs and fetch-sdk-docs answer Plinth’s own docs, with the configured URL in place', async () => {
    const instructions = await tool('fetch-docs', { docType: 'instructions' });
    expect(instructions).toContain('Plinth — instructions for agents');
    expect(instructions).toContain(base);
    expect(instructions).not.toContain('http://localhost:7130');
    const db = await tool('fetch-sdk-docs', { sdkFeature: 'db', sdkLanguage: 'typescript' });
    expect(db).toContain("client.database.from('todos')");
    expect(await tool('fetch-sdk-docs', { sdkFeature: 'db', sdkLanguage: 'swift' })).toMatch(/not available/);
  });

  it('get-container-logs reads the server log under the reference’s source name', async () => {
    expect(await tool('get-container-logs', { source: 'insforge.logs', limit: 5 })).toMatch(/logs/i);
  });

  it('every tool call is reported to the usage route and readable by the admin', async () => {
    await tool('list-buckets');
    await expect
      .poll(async () => {
        const res = await t.request({
          method: 'GET',
          url: '/api/usage/mcp?limit=100',
          headers: { 'x-api-key': t.apiKey },
        });
        return res.json.records.map((r: { tool_name: string }) => r.tool_name);
      })
      .toEqual(expect.arrayContaining(['list-buckets', 'fetch-docs', 'get-anon-key', 'run-raw-sql']));
  });
});
