// Sorts a records request's query parameters into select, filters, orderings, paging,
// on_conflict and columns, each read by its own grammar.
import { GrammarError, type Paging, type ParsedQuery } from './ast.js';
import { MAX_CONDITIONS, countConditions, parseFilter } from './filters.js';
import { parseOrder } from './order.js';
import { Scanner, readDottedNames, readFieldName } from './scanner.js';
import { parseSelect } from './select.js';

export { parsePreferences } from './preferences.js';

/** Handled before the grammar (schema selection), so not a filter. */
const IGNORED = new Set(['schema']);

export function parseQuery(params: Iterable<[string, string]>): ParsedQuery {
  const query: ParsedQuery = { select: [{ kind: 'star' }], filters: [], orderings: [], paging: [] };
  const seen = new Set<string>();
  const once = (what: string, key: string) => {
    if (!seen.has(what)) return void seen.add(what);
    throw new GrammarError(
      `query parameter "${key}" is given more than once`,
      'give select, columns, on_conflict and each [embed.]order, limit and offset at most once',
    );
  };
  let conditions = 0;

  for (const [key, value] of params) {
    if (IGNORED.has(key)) continue;
    if (key === 'select' || key === 'columns' || key === 'on_conflict') {
      once(key, key);
      if (key === 'select') query.select = parseSelect(value);
      else if (key === 'columns') query.columns = parseColumnList(value, 'columns parameter');
      else query.onConflict = parseColumnList(value, 'on_conflict parameter');
      continue;
    }
    const last = key.slice(key.lastIndexOf('.') + 1);
    if (last === 'order' || last === 'limit' || last === 'offset') {
      const path = parseEmbedPath(key);
      once(`${last} ${JSON.stringify(path)}`, key);
      if (last === 'order') query.orderings.push({ path, terms: parseOrder(value) });
      else pagingOf(query, path)[last] = parseCount(key, value);
      continue;
    }
    const filter = parseFilter(key, value);
    conditions += countConditions(filter.expression);
    if (conditions > MAX_CONDITIONS) {
      const details = `a request may hold at most ${MAX_CONDITIONS} conditions across its filters`;
      throw new GrammarError('too many filter conditions', details);
    }
    query.filters.push(filter);
  }
  return query;
}

/** `clients.order` → `['clients']`: the embedding path before the reserved last name. */
function parseEmbedPath(key: string): string[] {
  const sc = new Scanner(key, 'tree path');
  const names = readDottedNames(sc);
  sc.expectEnd('"." or end of input');
  return names.slice(0, -1);
}

function pagingOf(query: ParsedQuery, path: string[]): Paging {
  const samePath = (paging: Paging) =>
    paging.path.length === path.length && paging.path.every((name, i) => name === path[i]);
  let paging = query.paging.find(samePath);
  if (!paging) {
    paging = { path };
    query.paging.push(paging);
  }
  return paging;
}

function parseCount(key: string, value: string): number {
  const count = Number(value);
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(count)) {
    throw new GrammarError(`"failed to parse ${key} parameter (${value})"`, 'expecting a non-negative integer');
  }
  return count;
}

/** `a, b,"c d"`: the names of `columns=` and `on_conflict=`. */
function parseColumnList(value: string, what: string): string[] {
  const sc = new Scanner(value, what);
  const names: string[] = [];
  do {
    sc.skipSpaces();
    names.push(readFieldName(sc));
    sc.skipSpaces();
  } while (sc.eat(','));
  sc.expectEnd('"," or end of input');
  return names;
}
