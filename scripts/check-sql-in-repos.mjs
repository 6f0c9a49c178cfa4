// Lint check (part of `npm run lint`): SQL statements live in `*.repo.ts` files only. Fails on a
// postgres.js tagged template (sql`…`, tx`…`, db`…`) or an `.unsafe(` call anywhere else in src/,
// except the executors allow-listed below. Uses the TypeScript checker, so a tag counts as SQL by
// its type (it has postgres.js's `unsafe`), whatever the variable is called.
import path from 'node:path';
import { API } from 'typescript/unstable/sync';
import { SyntaxKind } from 'typescript/unstable/ast';
import { skipTrivia } from 'typescript/unstable/ast/scanner';

/** Files that run SQL they do not own (DDL, user-written SQL, the migrator); each says why. */
const ALLOWED = new Map([
  ['src/core/db.ts', 'kernel: opens transactions and sets the request role and claims (withTx, withRequestScope)'],
  ['src/core/migrator.ts', 'kernel: applies the system schema (db/migrations DDL) and records what it applied'],
  ['src/core/rate-limiter.ts', 'kernel: the fixed-window counters every server shares (core has no module repo)'],
  ['src/deps.ts', 'composition root: creates the embedded database (CREATE DATABASE) before the pool exists'],
  ['src/modules/idempotency/idempotency.service.ts', 'switches role inside the caller’s transaction (set_config)'],
  ['src/modules/secrets/master-key.ts', 're-seals every sealed column of a fixed table list (identifiers from code)'],
  ['src/modules/database/admin-transaction.ts', 'SQL engine: runs admin-written SQL under its role and timeouts'],
  ['src/modules/migrations/migrations.service.ts', 'DDL executor: runs the statements of user migrations'],
  ['src/modules/database/raw-sql.service.ts', 'SQL engine: runs the raw SQL an admin sends'],
  ['src/modules/database/table-admin.service.ts', 'DDL executor: runs the table DDL it renders'],
  ['src/modules/database/export.service.ts', 'executor: runs the export query and catalog reads in one snapshot'],
  ['src/modules/backups/dump.service.ts', 'catalog executor: COPY of every user table in one read-only snapshot'],
  ['src/modules/backups/restore.service.ts', 'catalog executor: drops and recreates user objects from a dump'],
  ['src/modules/backups/restore-records.ts', 'catalog executor: COPY of a dump’s rows back into their tables'],
  ['src/modules/records/records-execute.ts', 'records pipeline, execute step: runs the rendered statement text'],
  ['src/modules/records/rpc.service.ts', 'records pipeline, execute step for RPC: runs the rendered call'],
  ['src/modules/records/schema-cache.ts', 'catalog introspection that builds the records schema cache'],
  ['src/modules/records/timezone.ts', 'catalog introspection: the zone names of pg_timezone_names'],
]);

const root = process.cwd();
const api = new API({ cwd: root });
const project = api.updateSnapshot({ openProject: 'tsconfig.json' }).getProjects()[0];
const { program, checker } = project;

const isSqlTag = (tag) => {
  const type = checker.getTypeAtLocation(tag);
  return type !== undefined && checker.getPropertyOfType(type, 'unsafe') !== undefined;
};
const isUnsafeCall = (node) =>
  node.kind === SyntaxKind.CallExpression &&
  node.expression.kind === SyntaxKind.PropertyAccessExpression &&
  node.expression.name.text === 'unsafe';

const found = [];
const seen = new Set();
for (const fileName of program.getSourceFileNames()) {
  const rel = path.relative(root, fileName).split(path.sep).join('/');
  seen.add(rel);
  if (!rel.startsWith('src/') || rel.endsWith('.repo.ts') || ALLOWED.has(rel)) continue;
  const file = program.getSourceFile(fileName);
  const lineOf = (node) => file.text.slice(0, skipTrivia(file.text, node.pos)).split('\n').length;
  const visit = (node) => {
    if ((node.kind === SyntaxKind.TaggedTemplateExpression && isSqlTag(node.tag)) || isUnsafeCall(node)) {
      found.push(`${rel}:${lineOf(node)}`);
    }
    node.forEachChild(visit);
  };
  visit(file);
}
api.close();
// An entry whose file moved or went away would let the next file of that name through unseen.
for (const rel of ALLOWED.keys()) if (!seen.has(rel)) found.push(`${rel}: allow-listed, but there is no such file`);

if (found.length > 0) {
  console.error(
    `SQL outside *.repo.ts (${found.length}): move it into the module's repo, or allow-list an executor in scripts/check-sql-in-repos.mjs.`,
  );
  for (const at of found) console.error(`  ${at}`);
  process.exit(1);
}
console.log(`SQL only in *.repo.ts (${ALLOWED.size} allow-listed executors).`);
