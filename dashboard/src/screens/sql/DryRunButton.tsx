// The dry run both SQL screens offer: POST /api/database/migrations/dry-run (always rolled back)
// and the button that starts it for the editor's SQL.
import { Button } from '@mantine/core';
import { type UseMutationResult, useMutation } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { type DryRunResult, jsonBody } from './sql-types';

type DryRun = UseMutationResult<DryRunResult, Error, string>;

export function useDryRun(handlers: {
  onSuccess(report: DryRunResult, sql: string): void;
  onError?(error: Error): void;
}): DryRun {
  const api = useApi();
  return useMutation({
    mutationFn: (sql: string) => api.json<DryRunResult>('/api/database/migrations/dry-run', jsonBody({ sql })),
    ...handlers,
  });
}

export function DryRunButton({ dryRun, sql }: { dryRun: DryRun; sql: string }) {
  return (
    <Button variant="default" onClick={() => dryRun.mutate(sql)} loading={dryRun.isPending} disabled={!sql.trim()}>
      Dry run
    </Button>
  );
}
