// SQL editor: write SQL, run it as project_admin (row-level security applies) or unrestricted (the
// database owner, behind a red warning and a confirmation), see the rows in a grid, dry-run it for
// the risk report, and keep a history (this browser) and saved snippets (server-side).
import { Alert, Button, Grid, Group, Radio, Stack, Tabs, Text, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { ActionError } from '../../ui/ActionError';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { ResultsGrid } from '../../ui/ResultsGrid';
import { SqlEditor } from '../../ui/SqlEditor';
import { DryRunButton, useDryRun } from './DryRunButton';
import { dryRunErrorLine, errorLineOf } from './error-line';
import { HistoryPanel } from './HistoryPanel';
import { useQueryHistory } from './query-history';
import { RiskReport } from './RiskReport';
import { SnippetsPanel } from './SnippetsPanel';
import { type DryRunResult, jsonBody, RAW_SQL_PATH, type RawSqlResult, type RunMode, type Snippet } from './sql-types';

type Outcome =
  | { kind: 'rows'; result: RawSqlResult; mode: RunMode }
  | { kind: 'risk'; report: DryRunResult; sql: string }
  | { kind: 'error'; error: unknown; title: string; line?: number };

function Results({ outcome }: { outcome: Outcome }) {
  if (outcome.kind === 'error') {
    return (
      <ActionError title={outcome.title} error={outcome.error}>
        {outcome.line ? <Text size="sm">At line {outcome.line} of the editor.</Text> : null}
      </ActionError>
    );
  }
  if (outcome.kind === 'risk') return <RiskReport report={outcome.report} />;
  const { result } = outcome;
  if (result.fields.length === 0) {
    return (
      <Alert color="green" title="Statement ran" role="status">
        {result.rowCount} row{result.rowCount === 1 ? '' : 's'} affected.
      </Alert>
    );
  }
  return (
    <Stack gap="xs">
      <Text size="sm" role="status">
        {result.rowCount} row{result.rowCount === 1 ? '' : 's'}
        {outcome.mode === 'owner' ? ' (unrestricted)' : ''}
      </Text>
      <ResultsGrid label="Query results" fields={result.fields.map((f) => f.name)} rows={result.rows} />
    </Stack>
  );
}

export default function SqlScreen() {
  const api = useApi();
  const history = useQueryHistory();
  const [sql, setSql] = useState('select now();');
  const [mode, setMode] = useState<RunMode>('project_admin');
  const [confirmingOwner, setConfirmingOwner] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [snippet, setSnippet] = useState<Snippet | null>(null);

  const run = useMutation({
    mutationFn: (vars: { sql: string; mode: RunMode }) =>
      api.json<RawSqlResult>(RAW_SQL_PATH[vars.mode], jsonBody({ query: vars.sql })),
    onSuccess: (result, vars) => {
      history.add({ sql: vars.sql, mode: vars.mode, at: new Date().toISOString(), ok: true });
      setOutcome({ kind: 'rows', result, mode: vars.mode });
    },
    onError: (error, vars) => {
      history.add({ sql: vars.sql, mode: vars.mode, at: new Date().toISOString(), ok: false });
      setOutcome({ kind: 'error', error, title: 'The query failed', line: errorLineOf(vars.sql, error) });
    },
  });
  const dryRun = useDryRun({
    onSuccess: (report, text) => setOutcome({ kind: 'risk', report, sql: text }),
    onError: (error) => setOutcome({ kind: 'error', error, title: 'The dry run failed' }),
  });

  const errorLine =
    outcome?.kind === 'error'
      ? outcome.line
      : outcome?.kind === 'risk' && outcome.sql === sql
        ? dryRunErrorLine(sql, outcome.report.error, outcome.report.statements)
        : undefined;
  const start = () => (mode === 'owner' ? setConfirmingOwner(true) : run.mutate({ sql, mode }));
  const load = (text: string) => {
    setSql(text);
    setOutcome(null);
  };

  return (
    <Stack>
      <Title order={1} size="h2">
        SQL editor
      </Title>
      <Grid>
        <Grid.Col span={{ base: 12, lg: 8 }}>
          <Stack gap="sm">
            <Radio.Group label="Run as" value={mode} onChange={(value) => setMode(value as RunMode)}>
              <Group mt={4}>
                <Radio value="project_admin" label="Project admin (row-level security applies)" />
                <Radio value="owner" label="Unrestricted (database owner)" color="red" />
              </Group>
            </Radio.Group>
            {mode === 'owner' ? (
              <Alert color="red" title="Unrestricted SQL" role="alert">
                Runs as the database owner: row-level security does not apply and every table, including the platform’s
                own, can be changed. You will be asked to confirm each run.
              </Alert>
            ) : null}
            <SqlEditor label="SQL" value={sql} onChange={setSql} errorLine={errorLine} onRun={start} />
            <Group gap="xs">
              <Button
                onClick={start}
                loading={run.isPending}
                disabled={!sql.trim()}
                color={mode === 'owner' ? 'red' : undefined}
              >
                {mode === 'owner' ? 'Run unrestricted' : 'Run'}
              </Button>
              <DryRunButton dryRun={dryRun} sql={sql} />
            </Group>
            <section aria-label="Results">{outcome ? <Results outcome={outcome} /> : null}</section>
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 4 }}>
          <Tabs defaultValue="snippets">
            <Tabs.List>
              <Tabs.Tab value="snippets">Snippets</Tabs.Tab>
              <Tabs.Tab value="history">History</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="snippets" pt="sm">
              <SnippetsPanel
                sql={sql}
                loaded={snippet}
                onLoad={(next) => {
                  setSnippet(next);
                  if (next && next.sql !== sql) load(next.sql);
                }}
              />
            </Tabs.Panel>
            <Tabs.Panel value="history" pt="sm">
              <HistoryPanel entries={history.entries} onClear={history.clear} onLoad={(entry) => load(entry.sql)} />
            </Tabs.Panel>
          </Tabs>
        </Grid.Col>
      </Grid>
      <ConfirmDialog
        opened={confirmingOwner}
        title="Run as the database owner?"
        confirmLabel="Run unrestricted"
        onClose={() => setConfirmingOwner(false)}
        onConfirm={() => {
          setConfirmingOwner(false);
          run.mutate({ sql, mode: 'owner' });
        }}
      >
        Row-level security does not apply and platform tables can be changed. Dry-run first if unsure.
      </ConfirmDialog>
    </Stack>
  );
}
