// Migrations: apply a new one (dry run first) and the applied history with the SQL of each.
import { Stack, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { ErrorState, Loading } from '../../shell/states';
import { MigrationHistory } from './MigrationHistory';
import type { AppliedMigration } from './migration-types';
import { NewMigration } from './NewMigration';

export default function MigrationsScreen() {
  const api = useApi();
  const history = useQuery({
    queryKey: ['migrations'],
    queryFn: async () => (await api.json<{ migrations: AppliedMigration[] }>('/api/database/migrations')).migrations,
  });
  return (
    <Stack>
      <Title order={1} size="h2">
        Migrations
      </Title>
      <NewMigration latestVersion={history.data?.[0]?.version} />
      <Title order={2} size="h4">
        Applied migrations
      </Title>
      {history.isPending ? <Loading what="migrations" /> : null}
      {history.isError ? <ErrorState error={history.error} what="migrations" /> : null}
      {history.data ? <MigrationHistory migrations={history.data} /> : null}
    </Stack>
  );
}
