// How an embedded resource relates to its parent, found in the schema cache's foreign keys as
// PostgREST finds it: many-to-one, one-to-many, one-to-one (the foreign key's columns are unique)
// and many-to-many through a junction table whose key holds both foreign keys.
import { recordsError } from '../records-errors.js';
import { qualified, type ForeignKey, type SchemaSnapshot, type Table } from '../schema-cache.js';
import type { Relationship } from './types.js';

interface Candidate extends Relationship {
  /** What a hint may name: the constraint, its columns, or the junction table. */
  names: string[];
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));
const pointsAt = (fk: ForeignKey, table: Table) => fk.refSchema === table.schema && fk.refTable === table.name;
const holdsKey = (fk: ForeignKey, table: Table) => fk.schema === table.schema && fk.table === table.name;

function directCandidates(
  snapshot: SchemaSnapshot,
  parent: Table,
  relation: string,
  child: Table | undefined,
): Candidate[] {
  const candidates: Candidate[] = [];
  for (const fk of snapshot.foreignKeys) {
    const names = [fk.name, ...fk.columns];
    const fromParent = holdsKey(fk, parent);
    const referenced = snapshot.tables.get(qualified(fk.refSchema, fk.refTable));
    const forward = (target: Table): Candidate => ({
      child: target,
      cardinality: 'to-one',
      join: { kind: 'pairs', parent, child: target, pairs: fk.columns.map((c, i) => [c, fk.refColumns[i]!]) },
      names,
    });
    // Embedding by the foreign key's column (`author_id(*)`) or constraint name: the row it points at.
    if (fromParent && referenced && ((fk.columns.length === 1 && fk.columns[0] === relation) || fk.name === relation)) {
      candidates.push(forward(referenced));
      continue;
    }
    if (!child) continue;
    // By table name, a table's reference to itself is read as one-to-many, as PostgREST does.
    if (child !== parent && fromParent && pointsAt(fk, child)) candidates.push(forward(child));
    if (holdsKey(fk, child) && pointsAt(fk, parent)) {
      // The child's foreign key columns are unique there: at most one child per parent.
      const unique = child !== parent && child.uniqueKeys.some((key) => sameSet(key, fk.columns));
      candidates.push({
        child,
        cardinality: unique ? 'to-one' : 'to-many',
        join: { kind: 'pairs', parent, child, pairs: fk.refColumns.map((c, i) => [c, fk.columns[i]!]) },
        names,
      });
    }
  }
  return candidates;
}

/** Junction tables between parent and child: a foreign key to each, both inside one unique key. */
function junctionCandidates(snapshot: SchemaSnapshot, parent: Table, child: Table): Candidate[] {
  const candidates: Candidate[] = [];
  for (const toParent of snapshot.foreignKeys) {
    if (!pointsAt(toParent, parent)) continue;
    const junction = snapshot.tables.get(qualified(toParent.schema, toParent.table));
    if (!junction || junction === parent || junction === child) continue;
    for (const toChild of snapshot.foreignKeys) {
      if (toChild === toParent || !holdsKey(toChild, junction) || !pointsAt(toChild, child)) continue;
      const keyed = junction.uniqueKeys.some((key) =>
        [...toParent.columns, ...toChild.columns].every((c) => key.includes(c)),
      );
      if (!keyed) continue;
      candidates.push({
        child,
        cardinality: 'to-many',
        join: { kind: 'junction', parent, child, junction, toParent, toChild },
        names: [junction.name, toParent.name, toChild.name],
      });
    }
  }
  return candidates;
}

/** The relationship between `parent` and the resource `relation`, picked by `hint` if several. */
export function relationshipOf(
  snapshot: SchemaSnapshot,
  parent: Table,
  relation: string,
  hint: string | undefined,
): Relationship {
  const child = snapshot.tables.get(qualified(parent.schema, relation));
  const candidates = [
    ...directCandidates(snapshot, parent, relation, child),
    ...(child ? junctionCandidates(snapshot, parent, child) : []),
  ];
  const matching = hint === undefined ? candidates : candidates.filter((c) => c.names.includes(hint));
  if (matching.length === 1) return matching[0]!;
  if (matching.length === 0) {
    throw recordsError(
      'VALIDATION_ERROR',
      'PGRST200',
      `Could not find a relationship between '${parent.name}' and '${relation}' in the schema cache`,
      {
        hint: 'Embedding follows foreign keys; check the table name or add a foreign key.',
      },
    );
  }
  throw recordsError(
    'MULTIPLE_CHOICES',
    'PGRST201',
    `Could not embed because more than one relationship was found for '${parent.name}' and '${relation}'`,
    {
      details: matching.map((m) => m.names[0]).join(', '),
      hint: `Pick one with '${relation}!<constraint name>'.`,
    },
  );
}
