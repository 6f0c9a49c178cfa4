// The statement of a planned function call: the call with every argument bound as text and cast
// by PostgreSQL to its parameter's type (text converts to any type, so no client-side serializer
// reinterprets it), its result shaped by the records grammar as a read's rows are.
import type { CallPlan, PlannedArgument, RpcResultShape } from '../plan/types.js';
import { ident, Params } from './params.js';
import { SelectRenderer } from './select-list.js';

export interface RpcStatement {
  text: string;
  params: unknown[];
  shape: RpcResultShape;
}

/** `name => $n::text::type` (`variadic name => …`), or the bare cast for an unnamed parameter. */
function argumentSql({ arg, text }: PlannedArgument, params: Params): string {
  const cast = `${params.add(text)}::text::${arg.type}`;
  return arg.name === '' ? cast : `${arg.variadic ? 'variadic ' : ''}${ident(arg.name)} => ${cast}`;
}

export function renderCall(plan: CallPlan, options: { count: boolean }): RpcStatement {
  const { routine } = plan;
  const params = new Params();
  const call = `${ident(routine.schema)}.${ident(routine.name)}(${plan.args.map((a) => argumentSql(a, params)).join(', ')})`;
  const none = 'null::int as page_rows, null::bigint as total';
  if (!plan.result) {
    const text =
      plan.shape === 'void'
        ? `select null::text as body, ${none} from ${call}`
        : `select to_json(_f._v)::text as body, ${none} from ${call} _f(_v)`;
    return { text, params: params.values, shape: plan.shape };
  }

  const { node, scalars } = plan.result;
  const renderer = new SelectRenderer(params);
  renderer.nextAlias(); // t0 is the root
  const where = renderer.conditions(node.filters, 't0');
  const orderAndPage = `${renderer.orderBy(node.order, 't0')}${renderer.limitOffset(node.page)}`;
  const { columns, inner, joins } = scalars
    ? { columns: [`t0.${ident(routine.name)} as _v`], inner: [], joins: '' }
    : renderer.list(node.items, 't0');
  const conditions = [...where, ...inner];
  const whereSql = conditions.length ? ` where ${conditions.join(' and ')}` : '';
  const total = options.count ? `select count(*) from _source t0${whereSql}` : 'null::bigint';
  const aggregate = scalars ? `json_agg(_r._v)` : 'json_agg(_r)';
  // Materialized: the function runs once, however often the answer reads its rows.
  const source = scalars ? `select _f.* from ${call} _f(${ident(routine.name)})` : `select _f.* from ${call} _f`;
  const text = `with _source as materialized (${source})
    select coalesce(${aggregate}, '[]'::json)::text as body, count(_r)::int as page_rows, (${total}) as total
    from (select ${columns.join(', ')} from _source t0${joins}${whereSql}${orderAndPage}) _r`;
  return { text, params: params.values, shape: plan.shape };
}
