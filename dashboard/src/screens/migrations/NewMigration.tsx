// Applying a new migration: version, name and SQL; a dry run first (the risk report), then apply,
// confirmed when the report warns. A failing statement is marked at its line in the editor.
import { Button, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useApi } from '../../api/context';
import { ActionError } from '../../ui/ActionError';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { SqlEditor } from '../../ui/SqlEditor';
import { DryRunButton, useDryRun } from '../sql/DryRunButton';
import { dryRunErrorLine, errorLineOf } from '../sql/error-line';
import { RiskReport } from '../sql/RiskReport';
import { type DryRunResult, jsonBody } from '../sql/sql-types';
import { type AppliedMigration, nextVersion } from './migration-types';

export function NewMigration({ latestVersion }: { latestVersion: string | undefined }) {
  const api = useApi();
  const queries = useQueryClient();
  const [version, setVersion] = useState(() => nextVersion(latestVersion));
  const [name, setName] = useState('');
  const [sql, setSql] = useState('');
  const [report, setReport] = useState<{ sql: string; result: DryRunResult } | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [applied, setApplied] = useState<AppliedMigration | null>(null);
  /** A new editor after each applied migration: it starts empty whatever the admin typed last. */
  const [editorGeneration, setEditorGeneration] = useState(0);

  useEffect(() => setVersion(nextVersion(latestVersion)), [latestVersion]);

  const dryRun = useDryRun({ onSuccess: (result, text) => setReport({ sql: text, result }) });
  const apply = useMutation({
    mutationFn: () => api.json<AppliedMigration>('/api/database/migrations', jsonBody({ version, name, sql })),
    onSuccess: async (migration) => {
      setApplied(migration);
      setReport(null);
      setName('');
      setSql('');
      setEditorGeneration((g) => g + 1);
      await queries.invalidateQueries({ queryKey: ['migrations'] });
    },
  });

  const checked = report !== null && report.sql === sql ? report.result : null;
  const errorLine = apply.isError
    ? errorLineOf(sql, apply.error)
    : checked
      ? dryRunErrorLine(sql, checked.error, checked.statements)
      : undefined;
  const startApply = () => (checked?.riskLevel === 'SAFE' ? apply.mutate() : setConfirming(true));

  return (
    <Paper withBorder p="md" component="section" aria-labelledby="new-migration">
      <Stack gap="sm">
        <Title order={2} size="h4" id="new-migration">
          New migration
        </Title>
        <Group grow align="flex-start" wrap="wrap">
          <TextInput
            label="Version (newer than the latest applied)"
            value={version}
            onChange={(event) => setVersion(event.currentTarget.value)}
            miw={180}
          />
          <TextInput
            label="Migration name (a-z, 0-9, -)"
            value={name}
            onChange={(event) => setName(event.currentTarget.value)}
            miw={180}
          />
        </Group>
        <SqlEditor
          key={editorGeneration}
          label="Migration SQL"
          value={sql}
          onChange={(text) => {
            setSql(text);
            apply.reset();
            setApplied(null);
          }}
          errorLine={errorLine}
        />
        <Group gap="xs">
          <DryRunButton dryRun={dryRun} sql={sql} />
          <Button
            onClick={startApply}
            loading={apply.isPending}
            disabled={!checked?.valid || !name.trim() || !version.trim()}
            color={checked?.riskLevel === 'DANGER' ? 'red' : undefined}
          >
            Apply migration
          </Button>
          {!checked ? <Text size="sm">Dry-run the SQL first; applying is enabled when it runs cleanly.</Text> : null}
        </Group>
        {checked ? <RiskReport report={checked} /> : null}
        {dryRun.isError ? <ActionError title="The dry run failed" error={dryRun.error} /> : null}
        {apply.isError ? (
          <ActionError title="The migration was not applied" error={apply.error}>
            {errorLine ? <Text size="sm">At line {errorLine} of the SQL.</Text> : null}
          </ActionError>
        ) : null}
        {applied ? (
          <Text size="sm" fw={700} role="status">
            Applied {applied.version} {applied.name} ({applied.statements.length} statement
            {applied.statements.length === 1 ? '' : 's'}).
          </Text>
        ) : null}
      </Stack>
      <ConfirmDialog
        opened={confirming}
        title={`Apply a migration the dry run rates ${checked?.riskLevel ?? ''}?`}
        confirmLabel="Apply migration"
        onClose={() => setConfirming(false)}
        onConfirm={() => {
          setConfirming(false);
          apply.mutate();
        }}
      >
        {checked?.riskFactors.map((f) => f.description).join(' ') || 'The migration changes the schema.'}
      </ConfirmDialog>
    </Paper>
  );
}
