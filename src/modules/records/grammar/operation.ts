// One filter's operator expression, `[not.]op[(any|all)|(language)].value`, with its operand:
// verbatim text, an `in.(…)` list, a `{…}` array for any/all, or an `is` keyword.
import { OPERATORS, type Condition, type FieldRef, type Operator } from './ast.js';
import { readClosedQuoted, readIdentifier, readQuoted, type Scanner } from './scanner.js';

/** Where the operand sits: alone in a parameter value, or inside an `or=(…)` tree. */
export type OperandContext = 'value' | 'tree';

const QUANTIFIABLE = new Set<Operator>(['eq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch']);
const FULL_TEXT = new Set<Operator>(['fts', 'plfts', 'phfts', 'wfts']);
const IS_VALUES = ['null', 'true', 'false', 'unknown'];
const OPERATOR_LIST = 'operator (eq, gt, ...)';

function isOperator(word: string): word is Operator {
  return (OPERATORS as readonly string[]).includes(word);
}

/**
 * Reads the expression after `field.` (in a tree) or the whole parameter value. In a tree it
 * stops before the `,` or `)` that ends the condition; the caller checks what follows.
 */
export function readOperation(sc: Scanner, field: FieldRef, context: OperandContext): Condition {
  const negated = sc.eat('not.');
  const at = sc.pos;
  const word = sc.takeWhile((char) => /[A-Za-z_]/.test(char));
  if (!isOperator(word)) {
    if (word === '') sc.fail(`${negated ? '' : '"not" or '}${OPERATOR_LIST}`, at);
    throw sc.error(`unknown operator "${word}", expecting ${negated ? '' : '"not" or '}${OPERATOR_LIST}`, at);
  }
  const condition: Condition = { kind: 'condition', field, negated, operator: word, value: '' };

  if (FULL_TEXT.has(word) && sc.eat('(')) {
    const language = readIdentifier(sc);
    if (language === '') sc.fail('text search configuration (letters, digits, _)');
    sc.expect(')');
    condition.language = language;
  } else if (QUANTIFIABLE.has(word) && sc.eat('(')) {
    const quantifier = sc.eat('any') ? 'any' : sc.eat('all') ? 'all' : sc.fail('"any" or "all"');
    sc.expect(')');
    condition.quantifier = quantifier;
  } else if (sc.peek() === '(') {
    throw sc.error(
      `operator "${word}" takes no modifier: only ${[...QUANTIFIABLE].join(', ')} take (any)/(all), ` +
        'and fts, plfts, phfts, wfts a (language)',
    );
  }
  sc.expect('.', 'delimiter (.)');

  if (word === 'in') condition.value = readList(sc);
  else if (word === 'is') condition.value = readIsValue(sc);
  else if (condition.quantifier) condition.value = readArrayLiteral(sc);
  else condition.value = readScalar(sc, context);

  if (context === 'value') sc.expectEnd('end of input');
  return condition;
}

function readIsValue(sc: Scanner): string {
  const at = sc.pos;
  const word = sc.takeWhile((char) => /[A-Za-z_]/.test(char)).toLowerCase();
  if (!IS_VALUES.includes(word)) sc.fail('null or trilean value (unknown, true, false)', at);
  return word;
}

/**
 * A plain operand. Alone it is the rest of the value, verbatim (PostgREST keeps quotes there).
 * In a tree it is a `"quoted"` value (closed right before `,` or `)`), a `{…}` array literal
 * kept whole, or raw text up to the next `,` or `)`.
 */
function readScalar(sc: Scanner, context: OperandContext): string {
  if (context === 'value') {
    const rest = sc.text.slice(sc.pos);
    sc.pos = sc.text.length;
    return rest;
  }
  const quoted = readQuotedElement(sc);
  if (quoted !== undefined) return quoted;
  const array = sc.match(/\{[^{}]*\}/y)?.[0];
  if (array !== undefined) {
    sc.pos += array.length;
    return array;
  }
  return sc.takeWhile((char) => char !== ',' && char !== ')');
}

/**
 * A quoted element counts only when `,`, `)` or the end follows (spaces around it allowed);
 * otherwise the text is raw, quotes and all, as PostgREST reads it.
 */
function readQuotedElement(sc: Scanner): string | undefined {
  const start = sc.pos;
  sc.skipSpaces();
  const value = sc.peek() === '"' ? readQuoted(sc) : undefined;
  sc.skipSpaces();
  if (value !== undefined && (sc.atEnd || sc.peek() === ',' || sc.peek() === ')')) return value;
  sc.pos = start;
  return undefined;
}

/** `(a,"b,c","say \"hi\"")`: PostgREST's list; unquoted elements are kept verbatim, `()` is empty. */
function readList(sc: Scanner): string[] {
  sc.skipSpaces();
  sc.expect('(', '"(" (a list like in.(a,b))');
  sc.skipSpaces();
  const items: string[] = [];
  let quotedAny = false;
  do {
    const quoted = readQuotedElement(sc);
    quotedAny ||= quoted !== undefined;
    items.push(quoted ?? sc.takeWhile((char) => char !== ',' && char !== ')'));
  } while (sc.eat(','));
  sc.expect(')', '"," or ")"');
  sc.skipSpaces();
  return items.length === 1 && items[0] === '' && !quotedAny ? [] : items;
}

/**
 * `{a,"b,c"}` for `(any)`/`(all)`, read as PostgreSQL reads an array literal: elements split at
 * commas, double quotes and backslashes escape, spaces around unquoted elements dropped.
 */
function readArrayLiteral(sc: Scanner): string[] {
  sc.expect('{', '"{" (a list like {a,b} after (any)/(all))');
  sc.skipSpaces();
  const items: string[] = [];
  if (sc.eat('}')) return items;
  do {
    sc.skipSpaces();
    items.push(readArrayElement(sc));
    sc.skipSpaces();
  } while (sc.eat(','));
  sc.expect('}', '"," or "}"');
  return items;
}

function readArrayElement(sc: Scanner): string {
  if (sc.peek() === '"') return readClosedQuoted(sc);
  if (sc.peek() === '{') sc.fail('an array element (nested arrays are not supported)');
  const at = sc.pos;
  let out = '';
  let escapedUpTo = 0; // an escaped trailing space is content, not padding
  while (!sc.atEnd && !',}{"'.includes(sc.peek())) {
    const escaped = sc.eat('\\');
    if (escaped && sc.atEnd) break;
    out += sc.peek();
    sc.pos++;
    if (escaped) escapedUpTo = out.length;
  }
  out = out.slice(0, Math.max(escapedUpTo, out.trimEnd().length));
  if (out === '') sc.fail('an array element (use "" for an empty string)', at);
  if (sc.peek() === '{' || sc.peek() === '"') sc.fail('"," or "}" (nested arrays are not supported)');
  return out;
}
