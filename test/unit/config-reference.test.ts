// docs/reference/configuration.md is generated from the settings schema (src/config.ts): the committed
// page must be what the generator writes now, and every setting must say what it does.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_REFERENCE_PATH, renderConfigReference, settingDocs } from '../../scripts/gen-config-docs.js';

describe('configuration reference', () => {
  it('every setting in src/config.ts has a description', () => {
    const undocumented = settingDocs()
      .filter((d) => !d.description)
      .map((d) => d.key);
    expect(undocumented, 'add .describe() to these settings in src/config.ts, then run `npm run docs:config`').toEqual(
      [],
    );
  });

  it('the committed page is the generated one', () => {
    const committed = readFileSync(CONFIG_REFERENCE_PATH, 'utf8');
    // A plain boolean, so the failure says what to do instead of printing a long diff first.
    const upToDate = committed === renderConfigReference();
    expect(upToDate, 'docs/reference/configuration.md is stale: run `npm run docs:config` and commit it').toBe(true);
  });

  it('lists each setting once, with its type and default', () => {
    const docs = new Map(settingDocs().map((d) => [d.key, d]));
    expect(docs.get('PORT')).toMatchObject({ type: 'integer 1–65535', defaultText: '`7130`' });
    expect(docs.get('PASSWORD_HASH_CONCURRENCY')).toMatchObject({
      type: 'integer ≥ 1',
      defaultText: 'number of cores',
    });
    expect(docs.get('METRICS_ACCESS')).toMatchObject({ type: '`off` | `api-key` | `public`' });
    expect(docs.get('TRUST_PROXY')).toMatchObject({ type: 'boolean', defaultText: '`false`' });
    const page = renderConfigReference();
    for (const key of docs.keys()) expect(page.match(new RegExp(`^\\| \`${key}\` +\\|`, 'gm')), key).toHaveLength(1);
  });
});
