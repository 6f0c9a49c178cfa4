// Content negotiation for records answers (Accept → JSON, one object or CSV; else PGRST107), the
// CSV rendering of a JSON answer and the reading of CSV request bodies, as tables of cases.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { fromCsv, negotiate, toCsv, type Media } from '../../src/modules/records/media.js';

describe('negotiate', () => {
  it.each<[string | undefined, Media]>([
    [undefined, 'json'],
    ['', 'json'],
    ['application/json', 'json'],
    ['*/*', 'json'],
    ['application/*', 'json'],
    ['application/vnd.pgrst.array+json', 'json'],
    ['application/vnd.pgrst.object+json', 'object'],
    ['application/vnd.pgrst.object+json; charset=utf-8', 'object'],
    ['application/vnd.pgrst.object', 'object'],
    ['text/csv', 'csv'],
    ['TEXT/CSV', 'csv'],
    ['text/*', 'csv'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'json'],
    ['application/json;q=0.5, text/csv', 'csv'],
    ['text/csv;q=0, application/json', 'json'],
    ['image/png, text/csv;q=0.1', 'csv'],
    ['application/json, text/csv', 'json'],
    ['application/vnd.pgrst.object+json; q=nonsense', 'object'],
    ['text/csv; q=', 'csv'],
  ])('Accept: %s → %s', (accept, media) => {
    expect(negotiate(accept)).toBe(media);
  });

  it.each(['image/png', 'application/xml', 'text/csv;q=0', 'application/vnd.pgrst.plan+json', 'nonsense'])(
    'Accept: %s → 406 PGRST107',
    (accept) => {
      try {
        negotiate(accept);
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(AppError);
        expect([(err as AppError).statusCode, (err as AppError).fields?.code, (err as AppError).message]).toEqual([
          406,
          'PGRST107',
          `None of these media types are available: ${accept}`,
        ]);
      }
    },
  );
});

describe('toCsv', () => {
  it.each<[string, unknown[], string]>([
    ['no rows: empty', [], ''],
    [
      'a header, then rows',
      [
        { id: 1, name: 'a' },
        { id: 2, name: 'b' },
      ],
      'id,name\n1,a\n2,b',
    ],
    ['null is empty, booleans as words', [{ a: null, b: true }], 'a,b\n,true'],
    [
      'commas, quotes and newlines are quoted',
      [{ t: 'a,b' }, { t: 'say "hi"' }, { t: 'two\nlines' }],
      't\n"a,b"\n"say ""hi"""\n"two\nlines"',
    ],
    ['padding spaces are quoted', [{ t: ' x ' }], 't\n" x "'],
    ['objects and arrays as JSON', [{ j: { a: [1, 2] } }], 'j\n"{""a"":[1,2]}"'],
    ['a header that needs quoting', [{ 'a,b': 1 }], '"a,b"\n1'],
    ['scalars: one column', [1, null, 'x,y'], 'value\n1\n\n"x,y"'],
  ])('%s', (_label, rows, csv) => {
    expect(toCsv(JSON.stringify(rows))).toBe(csv);
  });
});

describe('fromCsv', () => {
  it.each<[string, string, unknown[]]>([
    [
      'a header and rows',
      'id,name\n1,a\n2,b',
      [
        { id: '1', name: 'a' },
        { id: '2', name: 'b' },
      ],
    ],
    ['CRLF and a trailing newline', 'id,name\r\n1,a\r\n', [{ id: '1', name: 'a' }]],
    ['NULL is null; empty is empty text', 'a,b\nNULL,', [{ a: null, b: '' }]],
    ['a quoted NULL is text', 'a\n"NULL"', [{ a: 'NULL' }]],
    ['quotes, commas and newlines inside quotes', 'a,b\n"x,y","say ""hi""\nbye"', [{ a: 'x,y', b: 'say "hi"\nbye' }]],
    ['blank lines are skipped', 'a\n1\n\n2\n', [{ a: '1' }, { a: '2' }]],
    ['only a header', 'a,b\n', []],
  ])('%s', (_label, csv, rows) => {
    expect(fromCsv(csv)).toEqual(rows);
  });

  it.each([
    ['an unclosed quote', 'a\n"x'],
    ['text after a closing quote', 'a\n"x"y'],
    ['a row with more fields than the header', 'a\n1,2'],
    ['a row with fewer fields', 'a,b\n1'],
  ])('refuses %s (400 PGRST102)', (_label, csv) => {
    try {
      fromCsv(csv);
      expect.unreachable();
    } catch (err) {
      expect([(err as AppError).statusCode, (err as AppError).fields?.code]).toEqual([400, 'PGRST102']);
    }
  });
});
