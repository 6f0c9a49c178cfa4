// Writes docs/reference/configuration.md from the settings schema in src/config.ts: every key, its
// type, its default and its description, so the page cannot drift from the code (`npm run docs:config`;
// test/unit/config-reference.test.ts fails when the committed page differs).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { z } from 'zod';
import { settingsSchema } from '../src/config.js';

export const CONFIG_REFERENCE_PATH = fileURLToPath(new URL('../docs/reference/configuration.md', import.meta.url));

/** Sections of the page, by the first matching key prefix (in this order); the rest is "Server". */
const SECTIONS: [title: string, prefixes: string[]][] = [
  ['Server and database', []],
  [
    'Auth',
    [
      'ADMIN_',
      'ACCESS_TOKEN_',
      'REFRESH_',
      'WEBAUTHN_',
      'PASSWORD_',
      'COOKIE_',
      'PLINTH_ENCRYPTION',
      'PLINTH_PREVIOUS',
    ],
  ],
  ['Email (SMTP)', ['SMTP_']],
  ['Records and SQL', ['RECORDS_', 'RAW_SQL_', 'ANON_STATEMENT', 'AUTHENTICATED_STATEMENT']],
  [
    'Requests, connections and overload',
    [
      'DB_POOL_',
      'ADMISSION_',
      'REQUEST_',
      'HTTP_',
      'MAX_CONNECTIONS',
      'MAX_BODY',
      'MAX_JSON',
      'SHUTDOWN_',
      'CORS_',
      'TRUST_',
    ],
  ],
  ['Realtime', ['REALTIME_']],
  ['Functions and outbound calls', ['FUNCTIONS_', 'OUTBOUND_']],
  ['AI', ['OPENROUTER_', 'MAX_COMPLETION_']],
  ['Payments', ['PAYMENTS_', 'RAZORPAY_']],
  ['Storage', ['STORAGE_', 'AWS_']],
  ['Sites', ['SITES_']],
  ['Logs and metrics', ['LOG_', 'LOGS_', 'METRICS_']],
  ['Schedules', ['SCHEDULES_']],
  ['Backups', ['BACKUPS_']],
];

function sectionOf(key: string): string {
  for (const [title, prefixes] of SECTIONS) if (prefixes.some((p) => key.startsWith(p))) return title;
  return SECTIONS[0]![0];
}

type Schema = z.ZodType & { def: Record<string, unknown> };
type NumberCheck = { check: string; value: number; inclusive: boolean };

/** The schema under defaults, optionals and transforms: what the value is read as. */
function innermost(schema: Schema): Schema {
  const def = schema.def as { type: string; innerType?: Schema; in?: Schema };
  if ((def.type === 'default' || def.type === 'optional') && def.innerType) return innermost(def.innerType);
  if (def.type === 'pipe' && def.in) return innermost(def.in);
  return schema;
}

const code = (v: unknown) => `\`${String(v)}\``;

/** A short type: integer 1–65535, URL, `a` | `b`, boolean, text. */
export function typeOf(schema: Schema): string {
  const inner = innermost(schema) as Schema & { options?: unknown[] };
  const def = inner.def as { type: string; format?: string };
  if (def.type === 'enum') {
    const options = inner.options ?? [];
    if (['true', 'false', '1', '0'].every((o) => options.includes(o))) return 'boolean';
    return options.map(code).join(' | ');
  }
  if (def.type === 'number') {
    const isInt = (inner as { isInt?: boolean }).isInt === true;
    let min: number | undefined;
    let max: number | undefined;
    for (const check of (def as { checks?: { _zod: { def: NumberCheck } }[] }).checks ?? []) {
      const c = check._zod.def;
      // Integers: "> 0" is "≥ 1".
      const step = c.inclusive ? 0 : isInt ? 1 : 0;
      if (c.check === 'greater_than') min = c.value + step;
      if (c.check === 'less_than') max = c.value - step;
    }
    const range =
      min !== undefined && max !== undefined
        ? ` ${min}–${max}`
        : min !== undefined
          ? ` ≥ ${min}`
          : max !== undefined
            ? ` ≤ ${max}`
            : '';
    return `${isInt ? 'integer' : 'number'}${range}`;
  }
  if (def.type === 'string') {
    if (def.format === 'url') return 'URL';
    if (def.format === 'email') return 'email';
    return 'text';
  }
  return def.type;
}

function defaultOf(schema: Schema, meta: Record<string, unknown> | undefined): string {
  if (typeof meta?.defaultText === 'string') return meta.defaultText;
  const def = schema.def as { type: string; defaultValue?: unknown };
  if (def.type === 'default') return def.defaultValue === '' ? 'empty' : code(def.defaultValue);
  return 'unset';
}

const cell = (text: string) => text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');

export interface SettingDoc {
  key: string;
  type: string;
  defaultText: string;
  description: string | undefined;
}

export function settingDocs(): SettingDoc[] {
  return Object.entries(settingsSchema.shape).map(([key, value]) => {
    const schema = value as unknown as Schema;
    const meta = z.globalRegistry.get(schema) as Record<string, unknown> | undefined;
    return { key, type: typeOf(schema), defaultText: defaultOf(schema, meta), description: schema.description };
  });
}

/** Markdown as Biome (`npm run lint`) formats it: the committed page passes the linter unchanged. */
function biomeFormatted(markdown: string): string {
  const biome = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');
  return execFileSync(process.execPath, [biome, 'format', `--stdin-file-path=${CONFIG_REFERENCE_PATH}`], {
    input: markdown,
    encoding: 'utf8',
  });
}

export function renderConfigReference(): string {
  const docs = settingDocs();
  const out = [
    '# Configuration reference',
    '',
    '<!-- Generated by `npm run docs:config` from src/config.ts. Do not edit: change the `.describe()` text there. -->',
    '',
    'Plinth reads its settings from environment variables, in `src/config.ts` only. An invalid value',
    'stops the start with one message naming every bad variable. Unset and empty variables take the',
    'default. Where each setting matters is in the guides ([index](../README.md)).',
    '',
  ];
  for (const [title] of SECTIONS) {
    const rows = docs.filter((d) => sectionOf(d.key) === title);
    if (rows.length === 0) continue;
    out.push(`## ${title}`, '', '| Variable | Type | Default | Meaning |', '| --- | --- | --- | --- |');
    for (const d of rows) {
      out.push(`| \`${d.key}\` | ${cell(d.type)} | ${cell(d.defaultText)} | ${cell(d.description ?? '')} |`);
    }
    out.push('');
  }
  return biomeFormatted(out.join('\n'));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const undocumented = settingDocs().filter((d) => !d.description);
  if (undocumented.length > 0) {
    console.error(`Add .describe() to these settings in src/config.ts: ${undocumented.map((d) => d.key).join(', ')}`);
    process.exitCode = 1;
  } else {
    writeFileSync(CONFIG_REFERENCE_PATH, renderConfigReference());
    console.log(`Wrote ${CONFIG_REFERENCE_PATH}`);
  }
}
