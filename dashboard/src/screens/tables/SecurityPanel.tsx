// Row-level security of one table: whether it is on, a plain warning when it is on with no policy
// (then only the admin reaches the rows), switching it (turning it off is confirmed), the table's
// policies, and a form for a new one.
import { Alert, Badge, Button, Code, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { ErrorState, Loading } from '../../shell/states';
import { ActionError } from '../../ui/ActionError';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { CreatePolicyForm } from './CreatePolicyForm';
import { type PolicyInfo, quoteIdent, runAdminSql, schemaKey, useTableObjects } from './tableApi';
import { HorizontalScroll } from '../../ui/HorizontalScroll';

export function SecurityPanel({ table, rlsEnabled }: { table: string; rlsEnabled: boolean }) {
  const api = useApi();
  const queries = useQueryClient();
  const policies = useTableObjects<PolicyInfo>('policies', table);
  const [confirmingOff, setConfirmingOff] = useState(false);

  const switchRls = useMutation({
    mutationFn: (on: boolean) =>
      runAdminSql(api, `alter table public.${quoteIdent(table)} ${on ? 'enable' : 'disable'} row level security`),
    onSuccess: async () => {
      setConfirmingOff(false);
      await queries.invalidateQueries({ queryKey: schemaKey(table) });
    },
  });

  const count = policies.data?.length ?? 0;
  // Tables made by the API get a policy for project_admin only; users still get nothing.
  const userPolicies = policies.data?.filter((p) => p.roles.some((role) => role !== 'project_admin')) ?? [];
  return (
    <Stack>
      <Group justify="space-between">
        <Group gap="xs">
          <Title order={2} size="h4">
            Row-level security
          </Title>
          <Badge color={rlsEnabled ? 'teal.9' : 'red.9'} variant="filled">
            {rlsEnabled ? 'RLS on' : 'RLS off'}
          </Badge>
        </Group>
        {rlsEnabled ? (
          <Button variant="default" color="red" onClick={() => setConfirmingOff(true)}>
            Disable row-level security
          </Button>
        ) : (
          <Button onClick={() => switchRls.mutate(true)} loading={switchRls.isPending}>
            Enable row-level security
          </Button>
        )}
      </Group>
      {!confirmingOff ? <ActionError error={switchRls.error} /> : null}
      {policies.isPending ? <Loading what="policies" /> : null}
      {policies.isError ? <ErrorState error={policies.error} what="policies" /> : null}
      {rlsEnabled && policies.data && userPolicies.length === 0 ? (
        <Alert color="red" title="RLS is on but this table has no policy" role="status">
          Row-level security is on and no policy lets users or the anon key in
          {count > 0 ? ' (the only policy is for project_admin)' : ''}, so they can neither read nor write its rows:
          only the admin can. Create a policy below to let them in.
        </Alert>
      ) : null}
      {!rlsEnabled ? (
        <Alert color="red" title="RLS is off">
          Row-level security is off: every caller with the anon key can read and write every row of {table}.
        </Alert>
      ) : null}
      {count > 0 ? (
        <HorizontalScroll label={`Policies of ${table}`}>
          <Table striped miw={600} aria-label={`Policies of ${table}`}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Policy</Table.Th>
                <Table.Th>Command</Table.Th>
                <Table.Th>Roles</Table.Th>
                <Table.Th>Using</Table.Th>
                <Table.Th>With check</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {policies.data?.map((p) => (
                <Table.Tr key={p.policyName}>
                  <Table.Td>{p.policyName}</Table.Td>
                  <Table.Td>
                    {p.command} ({p.permissive.toLowerCase()})
                  </Table.Td>
                  <Table.Td>{p.roles.join(', ')}</Table.Td>
                  <Table.Td>{p.using ? <Code>{p.using}</Code> : '—'}</Table.Td>
                  <Table.Td>{p.withCheck ? <Code>{p.withCheck}</Code> : '—'}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </HorizontalScroll>
      ) : policies.data ? (
        <Text size="sm">No policies on {table}.</Text>
      ) : null}
      <CreatePolicyForm table={table} />
      <ConfirmDialog
        opened={confirmingOff}
        title="Disable row-level security?"
        confirmLabel="Disable row-level security"
        busy={switchRls.isPending}
        error={switchRls.error}
        onConfirm={() => switchRls.mutate(false)}
        onClose={() => {
          setConfirmingOff(false);
          switchRls.reset();
        }}
      >
        With row-level security off, every caller with the anon key can read and write every row of {table}; its
        policies stop applying.
      </ConfirmDialog>
    </Stack>
  );
}
