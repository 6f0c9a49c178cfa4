// `plinth schedules list|create|update|delete|run|runs`: the project's schedules over the admin
// routes (/api/schedules). A schedule is named by its id, or by a name only one schedule has.
import { Option, type Command, InvalidArgumentError } from 'commander';
import { CliError, oneLine } from '../cli-error.js';
import type { CommandContext } from '../command-context.js';
import type { ApiClient } from '../api-client.js';
import { emit, objectTable } from '../output.js';
import type {
  HTTP_METHODS,
  MISSED_RUN_POLICIES,
  RunLogView,
  ScheduleView,
} from '../../src/modules/schedules/schedules.schemas.js';

// The schemas' own lists, repeated here so that `plinth --help` does not load zod; the types
// make them agree.
const METHODS: readonly (typeof HTTP_METHODS)[number][] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const MISSED: readonly (typeof MISSED_RUN_POLICIES)[number][] = ['skip', 'run_once'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const SCHEDULE_EXAMPLES = [
  'schedules create nightly-report --cron "0 3 * * *" --function report',
  'schedules create greeting --cron "0 9 * * 1-5" --time-zone Europe/Paris --function hello --body \'{"who":"team"}\'',
  'schedules create ping --cron "30 seconds" --function-url https://example.com/ping --method GET',
  'schedules update nightly-report --pause',
  'schedules runs nightly-report --limit 5',
];
const examples = (lines: string[]) => `\nExamples:\n${lines.map((line) => `  $ plinth ${line}`).join('\n')}\n`;

interface TargetOptions {
  cron?: string;
  timeZone?: string;
  function?: string;
  functionUrl?: string;
  method?: string;
  header?: Record<string, string>;
  body?: string;
  missedRuns?: string;
  timeoutMs?: number;
}

/** `Name: value` (repeatable) into one headers object. */
function collectHeader(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const at = value.indexOf(':');
  if (at <= 0) throw new InvalidArgumentError('must be "Name: value"');
  return { ...previous, [value.slice(0, at).trim()]: value.slice(at + 1).trim() };
}

const wholeNumber = (value: string): number => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
};

/** A JSON object as the JSON body, anything else as a text body. */
function bodyOf(text: string): unknown {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed;
  } catch {
    // Not JSON: sent as text.
  }
  return text;
}

/** The request fields the options set (absent options are left out). */
function fieldsOf(options: TargetOptions): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    cronSchedule: options.cron,
    timeZone: options.timeZone,
    functionSlug: options.function,
    functionUrl: options.functionUrl,
    httpMethod: options.method,
    headers: options.header,
    body: options.body === undefined ? undefined : bodyOf(options.body),
    missedRunPolicy: options.missedRuns,
    timeoutMs: options.timeoutMs,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

function targetOptions(command: Command, forCreate: boolean): Command {
  return command
    .option('--cron <expression>', `five cron fields, or "<n> seconds" (1-59)${forCreate ? ' (required)' : ''}`)
    .option('--time-zone <zone>', 'IANA time zone of the cron fields (default UTC)')
    .option('--function <slug>', 'invoke this function (or --function-url)')
    .option('--function-url <url>', 'call this http(s) URL instead (any function or webhook URL)')
    .addOption(new Option('--method <method>', 'HTTP method of each run (default POST)').choices(METHODS))
    .option(
      '--header <header>',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the server's secret template, not JavaScript's
      'a header of each run, "Name: value" (repeatable; ${{secrets.KEY}} allowed)',
      collectHeader,
    )
    .option('--body <json>', 'the body of each run (a JSON object, else text)')
    .addOption(new Option('--missed-runs <policy>', 'due times missed while no server ran').choices(MISSED))
    .option('--timeout-ms <ms>', 'how long a run may take', wholeNumber);
}

/** The schedule an argument names: its id, or the one schedule with that name. */
async function scheduleId(api: ApiClient, given: string): Promise<string> {
  if (UUID.test(given)) return given;
  const named = (await api.call<ScheduleView[]>('GET', '/api/schedules')).filter((s) => s.name === given);
  if (named.length === 1) return named[0]!.id;
  const hint =
    named.length === 0
      ? 'List them with `plinth schedules list` and give a name or an id from it.'
      : 'Give the id of the one you mean.';
  const problem =
    named.length === 0
      ? `No schedule is named "${given}".`
      : `${named.length} schedules are named "${given}": ${named.map((s) => s.id).join(', ')}.`;
  throw new CliError(oneLine(problem, hint), { nextActions: hint });
}

const target = (s: ScheduleView) => (s.functionSlug ? `function ${s.functionSlug}` : s.functionUrl);

export function registerSchedules(program: Command, ctx: CommandContext): void {
  const schedules = program
    .command('schedules')
    .description('cron schedules that call a function or a URL: list, create, update, delete, run, runs')
    .addHelpText('after', examples(SCHEDULE_EXAMPLES));

  schedules
    .command('list')
    .description('list the schedules with their next run')
    .action(async () => {
      const list = await (await ctx.api()).call<ScheduleView[]>('GET', '/api/schedules');
      emit(ctx, list, () =>
        list.length === 0
          ? ['No schedules. Create one with `plinth schedules create <name> --cron "0 3 * * *" --function <slug>`.']
          : objectTable(
              list.map((s) => ({
                id: s.id,
                name: s.name,
                cron: s.cronSchedule,
                timeZone: s.timeZone,
                target: target(s),
                active: s.isActive,
                nextRun: s.nextRun,
              })),
            ),
      );
    });

  targetOptions(
    schedules
      .command('create')
      .description('create a schedule: a name (a label), --cron, and --function or --function-url')
      .argument('<name>', 'a label of 3 to 255 characters (not unique)'),
    true,
  )
    .addHelpText('after', examples(SCHEDULE_EXAMPLES.filter((e) => e.startsWith('schedules create'))))
    .action(async (name: string, options: TargetOptions) => {
      if (options.cron === undefined)
        throw new CliError('A schedule needs --cron: five cron fields ("0 3 * * *") or "<n> seconds".');
      if ((options.function === undefined) === (options.functionUrl === undefined))
        throw new CliError('Give the target of each run: --function <slug> or --function-url <url> (one of them).');
      const api = await ctx.api();
      const created = await api.call<{ id: string; message: string }>('POST', '/api/schedules', {
        json: { name, ...fieldsOf(options) },
      });
      const schedule = await api.call<ScheduleView>('GET', `/api/schedules/${created.id}`);
      emit(ctx, schedule, () => [
        `Created schedule ${schedule.name} (${schedule.id}): ${target(schedule)}, next run ${schedule.nextRun ?? 'none'}`,
      ]);
    });

  targetOptions(
    schedules
      .command('update')
      .description('change a schedule (what is not given stays); --pause or --resume alone pauses or resumes it')
      .argument('<schedule>', 'its id, or a name only one schedule has')
      .option('--name <name>', 'a new name'),
    false,
  )
    .option('--pause', 'stop running it (until --resume)')
    .option('--resume', 'run it again, from now')
    .action(async (given: string, options: TargetOptions & { name?: string; pause?: boolean; resume?: boolean }) => {
      if (options.pause && options.resume) throw new CliError('Give --pause or --resume, not both.');
      const changes = {
        ...(options.name !== undefined ? { name: options.name } : {}),
        ...fieldsOf(options),
        ...(options.pause ? { isActive: false } : options.resume ? { isActive: true } : {}),
      };
      if (Object.keys(changes).length === 0)
        throw new CliError('Nothing to change: give an option (`plinth schedules update --help` lists them).');
      const api = await ctx.api();
      const id = await scheduleId(api, given);
      await api.call('PATCH', `/api/schedules/${id}`, { json: changes });
      const schedule = await api.call<ScheduleView>('GET', `/api/schedules/${id}`);
      emit(ctx, schedule, () => [
        `Updated schedule ${schedule.name} (${schedule.id}): ${schedule.isActive ? `next run ${schedule.nextRun ?? 'none'}` : 'paused'}`,
      ]);
    });

  schedules
    .command('delete')
    .description('delete a schedule and its run history')
    .argument('<schedule>', 'its id, or a name only one schedule has')
    .action(async (given: string) => {
      const api = await ctx.api();
      const id = await scheduleId(api, given);
      const answer = await api.call<{ message: string }>('DELETE', `/api/schedules/${id}`);
      emit(ctx, { id, ...answer }, () => [`${answer.message.replace(/\.$/, '')} (${id})`]);
    });

  schedules
    .command('run')
    .description('run a schedule now (paused or not) and print the run, recorded in its history')
    .argument('<schedule>', 'its id, or a name only one schedule has')
    .action(async (given: string) => {
      const api = await ctx.api();
      const id = await scheduleId(api, given);
      const run = await api.call<RunLogView>('POST', `/api/schedules/${id}/run`);
      emit(ctx, run, () => [
        `Run ${run.status} (${run.statusCode ?? 'no answer'}) in ${run.durationMs ?? '?'} ms${run.message ? `: ${run.message}` : ''}`,
      ]);
    });

  schedules
    .command('runs')
    .description("a schedule's run history, newest first")
    .argument('<schedule>', 'its id, or a name only one schedule has')
    .option('--limit <n>', 'how many runs (1-100)', wholeNumber, 20)
    .action(async (given: string, options: { limit: number }) => {
      const api = await ctx.api();
      const id = await scheduleId(api, given);
      const history = await api.call<{ logs: RunLogView[]; totalCount: number }>('GET', `/api/schedules/${id}/logs`, {
        query: { limit: options.limit },
      });
      emit(ctx, history, () =>
        history.logs.length === 0
          ? ['No runs yet.']
          : objectTable(
              history.logs.map((r) => ({
                executedAt: r.executedAt,
                status: r.status,
                statusCode: r.statusCode,
                durationMs: r.durationMs,
                message: r.message,
              })),
            ),
      );
    });
}
