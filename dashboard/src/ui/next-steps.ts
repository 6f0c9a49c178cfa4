// The next step each empty screen suggests, as a copyable snippet: a `plinth` CLI command (the
// cli/ package, see docs/cli.md), a call of the official client (@insforge/sdk) or, where neither
// has one, the admin API with curl. test/integration/dashboard/next-steps.test.ts runs every CLI
// line's command with --help, so a renamed command fails there.

export interface NextStep {
  /** What the snippet is: "CLI", "SDK", "SQL" or "curl". */
  kind: 'CLI' | 'SDK' | 'SQL' | 'curl';
  code: string;
}

const cli = (...lines: string[]): NextStep => ({ kind: 'CLI', code: lines.join('\n') });
const sdk = (...lines: string[]): NextStep => ({ kind: 'SDK', code: lines.join('\n') });
const curl = (method: string, path: string, body?: string): NextStep => ({
  kind: 'curl',
  code: [
    `curl -X ${method} "$PLINTH_URL${path}" \\`,
    `  -H "x-api-key: $PLINTH_API_KEY"${body ? ` -H 'content-type: application/json' \\` : ''}`,
    ...(body ? [`  -d '${body}'`] : []),
  ].join('\n'),
});
/** A name as a JavaScript string literal. */
const str = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

export const nextSteps = {
  tables: (): NextStep[] => [
    cli(
      'npx plinth db migrations new create-todos',
      '# write the CREATE TABLE in migrations/…_create-todos.sql, then',
      'npx plinth db migrations up --all',
    ),
  ],
  migrations: (): NextStep[] => [cli('npx plinth db migrations new add-orders', 'npx plinth db migrations up --all')],
  rows: (table: string): NextStep[] => [
    sdk(`const { error } = await client.database.from(${str(table)}).insert([{ /* column: value */ }]);`),
    cli(`npx plinth db seed seed.sql          # INSERT INTO ${table} … statements`),
  ],
  users: (): NextStep[] => [
    sdk("const { data, error } = await client.auth.signUp({ email: 'alice@example.com', password });"),
  ],
  buckets: (): NextStep[] => [cli('npx plinth storage mb ss://avatars            # --public for a public bucket')],
  objects: (bucket: string, prefix: string): NextStep[] => [
    cli(`npx plinth storage cp ./photo.png ss://${bucket}/${prefix}`),
    sdk(`await client.storage.from(${str(bucket)}).upload(${str(`${prefix}photo.png`)}, file);`),
  ],
  functions: (): NextStep[] => [
    cli(
      '# functions/hello.ts: export default async (req: Request) => Response.json({ hello: "world" })',
      'npx plinth functions deploy hello',
    ),
  ],
  invocations: (slug: string): NextStep[] => [
    cli(`npx plinth functions invoke ${slug}`),
    sdk(`const { data, error } = await client.functions.invoke(${str(slug)}, { body: {} });`),
  ],
  secrets: (): NextStep[] => [
    cli('npx plinth secrets set STRIPE_KEY sk_test_…     # functions read Deno.env.get("STRIPE_KEY")'),
  ],
  schedules: (): NextStep[] => [cli('npx plinth schedules create nightly --cron "0 3 * * *" --function hello')],
  channels: (): NextStep[] => [cli('npx plinth channels create "chat:%"')],
  messages: (): NextStep[] => [
    sdk('await client.realtime.connect();', "await client.realtime.publish('chat:lobby', 'message', { text: 'hi' });"),
    { kind: 'SQL', code: `select realtime.publish('chat:lobby', 'message', '{"text": "hi"}');` },
  ],
  logs: (): NextStep[] => [cli('npx plinth logs search --since 1h', 'npx plinth logs tail')],
  backups: (): NextStep[] => [cli('npx plinth backup create --name before-launch')],
  aiUsage: (): NextStep[] => [
    sdk(
      'const completion = await client.ai.chat.completions.create({',
      "  model: 'openai/gpt-4o-mini',",
      "  messages: [{ role: 'user', content: 'Hello' }],",
      '});',
    ),
  ],
  products: (environment: string): NextStep[] => [
    curl('POST', `/api/payments/${environment}/catalog/products`, '{"name": "Pro plan"}'),
  ],
  razorpayItems: (environment: string): NextStep[] => [
    curl(
      'POST',
      `/api/payments/razorpay/${environment}/catalog/items`,
      '{"name": "Pro plan", "amount": 49900, "currency": "INR"}',
    ),
  ],
  payments: (environment: string): NextStep[] => [
    sdk(
      `const { data, error } = await client.payments.stripe.createCheckoutSession(${str(environment)}, {`,
      "  mode: 'payment',",
      "  lineItems: [{ priceId: 'price_123', quantity: 1 }],",
      "  successUrl: 'https://your.app/success',",
      "  cancelUrl: 'https://your.app/pricing',",
      '});',
    ),
  ],
  sites: (): NextStep[] => [
    cli('npx plinth sites deploy dist          # --build "npm run build" builds on the server'),
  ],
};
