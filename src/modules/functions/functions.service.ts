// Managing functions: each write stores the code and deploys that version to this server's runtime
// in one transaction, so code that does not load (a syntax error, with its line) is never stored.
// Other servers redeploy on the NOTIFY the write sends.
import type { TransactionSql } from 'postgres';
import { type Queryable, withTx } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import type { FunctionsHost } from './functions-host.js';
import {
  deleteFunction,
  findFunction,
  insertFunction,
  listFunctions,
  updateFunction,
  type FunctionChanges,
  type FunctionRow,
  type NewFunction,
} from './functions.repo.js';
import { RESERVED_SLUGS } from './functions.schemas.js';

export interface Deployment {
  id: string;
  status: 'success' | 'failed' | 'pending';
  url: string | null;
}

const notFound = () => new AppError('FUNCTION_NOT_FOUND', 'Function not found');

/** Every function in short (slug, name, status, verifyJwt), for the metadata overview. */
export async function functionSummaries(db: Queryable) {
  return (await listFunctions(db)).map((f) => ({
    slug: f.slug,
    name: f.name,
    status: f.status,
    verifyJwt: f.verifyJwt,
  }));
}

/** Whether a function of this slug is deployed and active (the runtime holds every active one). */
export async function isActiveFunction(db: Queryable, slug: string): Promise<boolean> {
  return (await findFunction(db, slug))?.status === 'active';
}

export function createFunctionsService(deps: Pick<Deps, 'sql' | 'config'>, host: FunctionsHost) {
  /** Loads an active version into the runtime, or throws the load error (rolling back the write). */
  async function deployOrThrow(row: FunctionRow): Promise<Deployment | null> {
    if (row.status !== 'active') return null;
    const result = await host.deploy(row);
    const id = `${row.slug}@${row.version}`;
    if (result === 'pending') return { id, status: 'pending', url: null };
    if (!result.ok) {
      const where =
        result.line === null
          ? ''
          : ` (line ${result.line}${result.column === null ? '' : `, column ${result.column}`})`;
      throw new AppError('FUNCTION_DEPLOY_FAILED', `The function code could not be loaded: ${result.message}${where}`, {
        details: { line: result.line, column: result.column },
        nextActions: 'Fix the code and deploy again; nothing was stored.',
      });
    }
    return { id, status: 'success', url: `${deps.config.functions.baseUrl}/functions/${row.slug}` };
  }

  /**
   * Runs a write and its deployment together; afterwards (committed or not) this server's table
   * of active functions and its runtime are put in step with the database.
   */
  async function write(slug: string, work: (tx: TransactionSql) => Promise<FunctionRow>) {
    try {
      return await withTx(deps.sql, async (tx) => {
        const row = await work(tx);
        return { row, deployment: await deployOrThrow(row) };
      });
    } finally {
      await host.syncSlug(slug);
    }
  }

  return {
    list: () => listFunctions(deps.sql),
    /** Whether this server's runtime is running (functions answer 502 while it is not). */
    runtimeRunning: () => host.runtime.status === 'running',

    async get(slug: string): Promise<FunctionRow> {
      const row = await findFunction(deps.sql, slug);
      if (!row) throw notFound();
      return row;
    },

    async create(input: Omit<NewFunction, 'slug'> & { slug?: string }) {
      const slug = input.slug ?? input.name.trim().toLowerCase().replace(/\s+/g, '-');
      if (!/^[a-zA-Z0-9_-]+$/.test(slug)) {
        throw new AppError('VALIDATION_ERROR', `The slug "${slug}" derived from the name is not valid.`, {
          nextActions: 'Pass a slug matching ^[a-zA-Z0-9_-]+$.',
        });
      }
      if (RESERVED_SLUGS.has(slug.toLowerCase())) {
        throw new AppError('FUNCTION_SLUG_RESERVED', `The slug "${slug}" is reserved by the runtime.`);
      }
      return write(slug, async (tx) => {
        const row = await insertFunction(tx, { ...input, slug });
        if (!row) throw new AppError('FUNCTION_ALREADY_EXISTS', `A function with slug "${slug}" already exists.`);
        return row;
      });
    },

    async update(slug: string, changes: FunctionChanges) {
      return write(slug, async (tx) => {
        const row = await updateFunction(tx, slug, changes);
        if (!row) throw notFound();
        return row;
      });
    },

    async remove(slug: string): Promise<void> {
      if (!(await deleteFunction(deps.sql, slug))) throw notFound();
      await host.syncSlug(slug);
    },
  };
}

export type FunctionsService = ReturnType<typeof createFunctionsService>;
