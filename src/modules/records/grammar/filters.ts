// Filter parameters: `path.col->json=[not.]op.value` and the logic trees of `[path.][not.]or|and=(…)`,
// with nesting depth and condition count capped.
import { GrammarError, type Condition, type Expression, type Filter, type LogicTree } from './ast.js';
import { readOperation } from './operation.js';
import { Scanner, readDottedNames, readField, readJsonPath } from './scanner.js';

export const MAX_LOGIC_DEPTH = 10;
export const MAX_CONDITIONS = 100;

/** True for keys whose last dotted name is `and` or `or`: their value is a logic tree. */
export function isLogicKey(key: string): boolean {
  const last = key.slice(key.lastIndexOf('.') + 1);
  return last === 'and' || last === 'or';
}

export function parseFilter(key: string, value: string): Filter {
  return isLogicKey(key) ? parseLogicFilter(key, value) : parseConditionFilter(key, value);
}

/** How many conditions an expression holds (a plain filter is one). */
export function countConditions(expression: Expression): number {
  if (expression.kind === 'condition') return 1;
  return expression.children.reduce((sum, child) => sum + countConditions(child), 0);
}

function parseConditionFilter(key: string, value: string): Filter {
  const keyScanner = new Scanner(key, 'tree path');
  const names = readDottedNames(keyScanner);
  const json = readJsonPath(keyScanner);
  keyScanner.expectEnd(`${json.length === 0 ? '".", ' : ''}"->", "->>" or end of input`);
  const column = names.pop() as string;
  const expression = readOperation(new Scanner(value, 'filter'), { column, json }, 'value');
  return { path: names, expression };
}

/** `clients.not.or`: PostgREST drops every `not` from the path and negates the tree. */
function parseLogicFilter(key: string, value: string): Filter {
  const keyScanner = new Scanner(key, 'logic path');
  const names = readDottedNames(keyScanner);
  keyScanner.expectEnd('"." or end of input');
  const op = names.pop() as 'and' | 'or';
  const negated = names.includes('not');

  const sc = new Scanner(value, 'logic tree');
  const budget = { conditions: 0 };
  sc.skipSpaces();
  const children = readChildren(sc, 1, budget);
  sc.expectEnd('end of input');
  const expression: LogicTree = { kind: 'logic', op, negated, children };
  return { path: names.filter((name) => name !== 'not'), expression };
}

/** `(child,child,…)` where a child is a condition or a nested `[not.]and|or(…)`. */
function readChildren(sc: Scanner, depth: number, budget: { conditions: number }): Expression[] {
  if (depth > MAX_LOGIC_DEPTH) {
    throw sc.error(`logic trees may nest at most ${MAX_LOGIC_DEPTH} levels deep`);
  }
  sc.expect('(', '"("');
  const children: Expression[] = [];
  do {
    sc.skipSpaces();
    children.push(readChild(sc, depth, budget));
    sc.skipSpaces();
  } while (sc.eat(','));
  sc.expect(')', '"," or ")"');
  sc.skipSpaces();
  return children;
}

/**
 * A condition is tried first (so a column named `not` or `and` still works), as PostgREST does,
 * then `[not.]and|or(…)`, then `not.col.op.value` (PostgREST only knows `col.not.op.value`).
 */
function readChild(sc: Scanner, depth: number, budget: { conditions: number }): Expression {
  const start = sc.pos;
  let condition: Condition;
  try {
    condition = readCondition(sc);
  } catch (conditionError) {
    if (!(conditionError instanceof GrammarError)) throw conditionError;
    sc.pos = start;
    const logic = sc.match(/(not\.)?(and|or)[ \t]*(?=\()/y);
    if (logic) {
      sc.pos += logic[0].length;
      const op = logic[2] as 'and' | 'or';
      return { kind: 'logic', op, negated: logic[1] !== undefined, children: readChildren(sc, depth + 1, budget) };
    }
    if (!sc.eat('not.')) throw conditionError;
    condition = readCondition(sc);
    if (condition.negated) throw sc.error('a condition may be negated only once', start);
    condition.negated = true;
  }
  budget.conditions++;
  if (budget.conditions > MAX_CONDITIONS) {
    throw sc.error(`a logic tree may hold at most ${MAX_CONDITIONS} conditions`, start);
  }
  return condition;
}

function readCondition(sc: Scanner): Condition {
  const field = readField(sc);
  sc.expect('.', 'delimiter (.)');
  return readOperation(sc, field, 'tree');
}
