// The lexical pieces every records grammar shares (quoted values, field names, JSON paths,
// identifiers) over one cursor, and PostgREST-shaped parse errors that say where input went wrong.
import { GrammarError, type FieldRef, type JsonStep } from './ast.js';

/** PostgREST's identifier characters: letters, digits, `_`, `$` and space (names are trimmed). */
const IDENTIFIER_CHAR = /[\p{L}0-9_$ ]/u;
/** Characters that end an unquoted JSON key (PostgREST 12.0.1+ allows anything else). */
const JSON_KEY_STOP = new Set(['(', '-', ':', '.', ',', '>', ')']);

export const FIELD_NAME = 'field name (* or [a..z0..9_$])';

/** A cursor over one query-string key or value. `what` names it in errors: `filter`, `order`… */
export class Scanner {
  pos = 0;

  constructor(
    readonly text: string,
    private readonly what: string,
  ) {}

  get atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  peek(offset = 0): string {
    return this.text[this.pos + offset] ?? '';
  }

  lookingAt(token: string): boolean {
    return this.text.startsWith(token, this.pos);
  }

  eat(token: string): boolean {
    if (!this.lookingAt(token)) return false;
    this.pos += token.length;
    return true;
  }

  expect(token: string, expecting = `"${token}"`): void {
    if (!this.eat(token)) this.fail(expecting);
  }

  expectEnd(expecting: string): void {
    if (!this.atEnd) this.fail(expecting);
  }

  skipSpaces(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.pos++;
  }

  /** Consumes characters while `accept` holds (by code point) and returns them. */
  takeWhile(accept: (char: string) => boolean): string {
    const start = this.pos;
    while (!this.atEnd) {
      const char = String.fromCodePoint(this.text.codePointAt(this.pos) ?? 0);
      if (!accept(char)) break;
      this.pos += char.length;
    }
    return this.text.slice(start, this.pos);
  }

  /** Matches a sticky (`y`) pattern right here, without consuming or copying the rest. */
  match(sticky: RegExp): RegExpExecArray | null {
    sticky.lastIndex = this.pos;
    return sticky.exec(this.text);
  }

  /** Throws "unexpected X expecting Y" at `at`, as PostgREST's parser reports it. */
  fail(expecting: string, at = this.pos): never {
    throw this.error(`unexpected ${describeAt(this.text, at)} expecting ${expecting}`, at);
  }

  error(details: string, at = this.pos): GrammarError {
    const before = this.text.slice(0, at);
    const line = before.split('\n').length;
    const column = at - before.lastIndexOf('\n');
    return new GrammarError(`"failed to parse ${this.what} (${this.text})" (line ${line}, column ${column})`, details);
  }
}

function describeAt(text: string, at: number): string {
  const char = text.codePointAt(at);
  return char === undefined ? 'end of input' : JSON.stringify(String.fromCodePoint(char));
}

/** `"…"` with backslash escaping any character; undefined (cursor unmoved) when unterminated. */
export function readQuoted(sc: Scanner): string | undefined {
  const start = sc.pos;
  sc.pos++;
  let out = '';
  while (!sc.atEnd) {
    const char = sc.peek();
    sc.pos++;
    if (char === '"') return out;
    if (char === '\\') {
      if (sc.atEnd) break;
      out += sc.peek();
      sc.pos++;
    } else {
      out += char;
    }
  }
  sc.pos = start;
  return undefined;
}

/** A quoted value that must be closed: field names, hints, JSON keys. */
export function readClosedQuoted(sc: Scanner): string {
  const value = readQuoted(sc);
  if (value === undefined) sc.fail('closing quote (")', sc.text.length);
  return value;
}

/** Letters, digits, `_`, `$`, spaces — trimmed (casts, fts languages, name parts). */
export function readIdentifier(sc: Scanner): string {
  return sc.takeWhile((char) => IDENTIFIER_CHAR.test(char)).trim();
}

/** Parts joined by single dashes, where a dash before `>` starts a JSON arrow instead. */
function readDashed(sc: Scanner, readPart: () => string, expecting: string): string {
  const parts: string[] = [];
  for (;;) {
    const at = sc.pos;
    const part = readPart();
    if (part === '') sc.fail(expecting, at);
    parts.push(part);
    if (!(sc.peek() === '-' && sc.peek(1) !== '>')) return parts.join('-');
    sc.pos++;
  }
}

/** A column, relation, alias or hint: `"quoted \" name"` or `name-with-dashes`. */
export function readFieldName(sc: Scanner): string {
  if (sc.peek() === '"') {
    const at = sc.pos;
    const name = readClosedQuoted(sc);
    if (name === '') throw sc.error('a quoted name may not be empty', at);
    return name;
  }
  return readDashed(sc, () => readIdentifier(sc), FIELD_NAME);
}

/** `a.b.c`: the dotted names of a query-string key (embedding path, then the last name). */
export function readDottedNames(sc: Scanner): string[] {
  const names = [readFieldName(sc)];
  while (sc.eat('.')) names.push(readFieldName(sc));
  return names;
}

/** `->a->>0`: zero or more JSON steps; a bare (optionally negative) integer indexes an array. */
export function readJsonPath(sc: Scanner): JsonStep[] {
  const steps: JsonStep[] = [];
  for (;;) {
    const arrow = sc.eat('->>') ? '->>' : sc.eat('->') ? '->' : undefined;
    if (arrow === undefined) return steps;
    steps.push({ arrow, key: readJsonOperand(sc) });
  }
}

function readJsonOperand(sc: Scanner): string | number {
  if (sc.peek() === '"') return readClosedQuoted(sc);
  // An integer ending where a JSON step may end (else `1a` is a key): PostgREST's JIdx.
  const index = sc.match(/-?[0-9]+(?=->|::|[.,) \t]|$)/y)?.[0];
  if (index !== undefined) {
    const value = Number(index);
    if (!Number.isSafeInteger(value)) throw sc.error(`JSON array index ${index} is out of range`);
    sc.pos += index.length;
    return value === 0 ? 0 : value;
  }
  const keyPart = () => sc.takeWhile((char) => !JSON_KEY_STOP.has(char)).trim();
  return readDashed(sc, keyPart, 'JSON key (any character but .,:>() or a "quoted key")');
}

/** `name->json->>path` with the spaces around it. */
export function readField(sc: Scanner): FieldRef {
  sc.skipSpaces();
  const column = readFieldName(sc);
  const json = readJsonPath(sc);
  sc.skipSpaces();
  return { column, json };
}
