// The `select=` value: `*`, `alias:col->json::cast`, and embedded resources
// `alias:rel!hint!inner(…)` (or spread, `...rel(…)`) nested to a capped depth.
import { GrammarError, type SelectItem } from './ast.js';
import { Scanner, readFieldName, readIdentifier, readJsonPath } from './scanner.js';

export const MAX_EMBED_DEPTH = 10;

const AGGREGATE = /\.(sum|avg|count|max|min)\(\)/y;

export function parseSelect(input: string): SelectItem[] {
  const sc = new Scanner(input, 'select parameter');
  const items = readItems(sc, 0);
  sc.expectEnd('"," or end of input');
  return items;
}

/** Items separated by commas; none at all (`select=`, `rel()`) is an empty list. */
function readItems(sc: Scanner, depth: number): SelectItem[] {
  sc.skipSpaces();
  if (sc.atEnd || sc.peek() === ')') return [];
  const items: SelectItem[] = [];
  do {
    sc.skipSpaces();
    items.push(readItem(sc, depth));
    sc.skipSpaces();
  } while (sc.eat(','));
  return items;
}

function readItem(sc: Scanner, depth: number): SelectItem {
  if (sc.eat('...')) {
    const relation = readFieldName(sc);
    if (sc.peek() !== '!' && sc.peek() !== '(')
      sc.fail('"!" or "(" (a spread names an embedded resource: ...rel(cols))');
    return { ...readEmbed(sc, relation, undefined, depth), spread: true } as SelectItem;
  }
  if (sc.eat('*')) {
    expectItemEnd(sc, '",", ")" or end of input');
    return { kind: 'star' };
  }
  if (sc.lookingAt('count()')) throw aggregateError();
  const first = readFieldName(sc);
  let alias: string | undefined;
  let name = first;
  if (sc.peek() === ':' && sc.peek(1) !== ':') {
    sc.pos++;
    sc.skipSpaces();
    if (sc.lookingAt('count()')) throw aggregateError();
    alias = first;
    name = readFieldName(sc);
  }
  if (sc.peek() === '!' || sc.peek() === '(') return readEmbed(sc, name, alias, depth);

  const json = readJsonPath(sc);
  const item: SelectItem = { kind: 'field', field: { column: name, json } };
  if (alias !== undefined) item.alias = alias;
  if (sc.eat('::')) item.cast = readCast(sc);
  if (sc.match(AGGREGATE)) throw aggregateError();
  expectItemEnd(sc, '"->", "->>", "::", ",", ")" or end of input');
  return item;
}

/** After `rel`: `!hint` and `!inner`/`!left` in either order, then `(items)`. */
function readEmbed(sc: Scanner, relation: string, alias: string | undefined, depth: number): SelectItem {
  let hint: string | undefined;
  let join: 'inner' | 'left' | undefined;
  while (sc.eat('!')) {
    const at = sc.pos;
    const word = readFieldName(sc);
    if (word === 'inner' || word === 'left') {
      if (join !== undefined) throw sc.error(`"${relation}" has more than one join type (!inner, !left)`, at);
      join = word;
    } else {
      if (hint !== undefined) throw sc.error(`"${relation}" has more than one hint (!${hint}, !${word})`, at);
      hint = word;
    }
  }
  sc.expect('(', '"!" or "("');
  if (depth + 1 > MAX_EMBED_DEPTH) throw sc.error(`embedded resources may nest at most ${MAX_EMBED_DEPTH} levels deep`);
  const select = readItems(sc, depth + 1);
  sc.expect(')', '"," or ")"');
  sc.skipSpaces();
  const item: SelectItem = { kind: 'embed', relation, inner: join === 'inner', select };
  if (alias !== undefined) item.alias = alias;
  if (hint !== undefined) item.hint = hint;
  return item;
}

/** A type name: identifier characters (`double precision` too), optionally `[]`. */
function readCast(sc: Scanner): string {
  const name = readIdentifier(sc);
  if (name === '') sc.fail('a type name ([a..z0..9_$ ])');
  return sc.eat('[]') ? `${name}[]` : name;
}

function expectItemEnd(sc: Scanner, expecting: string): void {
  sc.skipSpaces();
  if (!(sc.atEnd || sc.peek() === ',' || sc.peek() === ')')) sc.fail(expecting);
}

/** PostgREST answers aggregates with PGRST123 while they are disabled, as they are by default. */
function aggregateError(): GrammarError {
  return new GrammarError('Use of aggregate functions is not allowed', undefined, 'PGRST123');
}
