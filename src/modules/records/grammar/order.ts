// The `order=` value: `col[->json][.asc|.desc][.nullsfirst|.nullslast]`, comma separated
// (ascending unless told; nulls order left to PostgreSQL unless told); `rel(col)` names a column
// of a to-one embedded resource.
import type { OrderTerm } from './ast.js';
import { Scanner, readField } from './scanner.js';

const DIRECTIONS = ['asc', 'desc'] as const;
const NULLS = { nullsfirst: 'first', nullslast: 'last' } as const;

export function parseOrder(value: string): OrderTerm[] {
  const sc = new Scanner(value, 'order');
  const terms: OrderTerm[] = [];
  do terms.push(readOrderTerm(sc));
  while (sc.eat(','));
  sc.expectEnd('"," or end of input');
  return terms;
}

function readOrderTerm(sc: Scanner): OrderTerm {
  let field = readField(sc);
  let relation: string | undefined;
  if (field.json.length === 0 && sc.eat('(')) {
    relation = field.column;
    field = readField(sc);
    sc.expect(')', '"->", "->>" or ")"');
  }
  const term: OrderTerm = { field, direction: 'asc' };
  if (relation !== undefined) term.relation = relation;

  // Each dotted word may only follow what came before: a direction, then a nulls order.
  const expecting = [
    '"asc", "desc", "nullsfirst" or "nullslast"',
    '"nullsfirst" or "nullslast"',
    '"," or end of input',
  ];
  let stage = 0;
  while (sc.eat('.')) {
    const at = sc.pos;
    const word = sc.takeWhile((char) => /[a-z]/i.test(char));
    if (stage === 0 && isDirection(word)) {
      term.direction = word;
      stage = 1;
    } else if (stage < 2 && isNulls(word)) {
      term.nulls = NULLS[word];
      stage = 2;
    } else {
      sc.fail(expecting[stage] as string, at);
    }
  }
  sc.skipSpaces();
  if (sc.atEnd || sc.peek() === ',') return term;
  return sc.fail(stage === 2 ? '"," or end of input' : 'delimiter (.), "," or end of input');
}

function isDirection(word: string): word is (typeof DIRECTIONS)[number] {
  return (DIRECTIONS as readonly string[]).includes(word);
}

function isNulls(word: string): word is keyof typeof NULLS {
  return Object.hasOwn(NULLS, word);
}
