// Who may subscribe to and publish on channels: the row-level security policies on the channels
// (subscribe) and messages (publish) tables, as PostgreSQL holds them.
import { Code, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import type { Permissions, Policy } from './types';
import { RowsTable } from '../../ui/QueryTable';

function PolicyTable({ label, policies, none }: { label: string; policies: Policy[]; none: string }) {
  return (
    <section aria-label={label}>
      <Title order={2} size="h4" mb="xs">
        {label}
      </Title>
      {policies.length === 0 ? (
        <EmptyState title="No policies">{none}</EmptyState>
      ) : (
        <RowsTable
          label={`${label} policies`}
          rows={policies}
          rowKey={(p) => `${p.tableName}.${p.policyName}`}
          columns={[
            { header: 'Policy', cell: (p) => p.policyName },
            { header: 'Command', cell: (p) => p.command },
            { header: 'Roles', cell: (p) => p.roles.join(', ') },
            {
              header: 'Condition',
              cell: (p) => (
                <>
                  {p.using ? <Code block>using {p.using}</Code> : null}
                  {p.withCheck ? <Code block>with check {p.withCheck}</Code> : null}
                </>
              ),
            },
          ]}
        />
      )}
    </section>
  );
}

export function PermissionsPanel() {
  const api = useApi();
  const permissions = useQuery({
    queryKey: ['realtime', 'permissions'],
    queryFn: () => api.json<Permissions>('/api/realtime/permissions'),
  });
  if (permissions.isPending) return <Loading what="permissions" />;
  if (permissions.isError) return <ErrorState error={permissions.error} what="permissions" />;
  return (
    <Stack>
      <Text size="sm">
        Policies are row-level security on the realtime tables; change them with SQL or a migration.
      </Text>
      <PolicyTable
        label="Subscribe"
        policies={permissions.data.subscribe.policies}
        none="No policy on realtime.channels (SELECT decides who may join a channel)."
      />
      <PolicyTable
        label="Publish"
        policies={permissions.data.publish.policies}
        none="No policy on realtime.messages (INSERT decides who may publish)."
      />
    </Stack>
  );
}
