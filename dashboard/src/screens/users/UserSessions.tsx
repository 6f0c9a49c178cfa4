// A user's live sessions: when each began, was last refreshed and expires; ending one (or all)
// stops its refresh token at once.
import { Group, Stack, Table, Title, VisuallyHidden } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { formatTime } from '../../ui/format';
import { Time } from '../../ui/Time';
import { usersApi } from './users-api';

export function UserSessions({ userId }: { userId: string }) {
  const api = usersApi(useApi());
  const queries = useQueryClient();
  const key = ['users', 'sessions', userId];
  const sessions = useQuery({ queryKey: key, queryFn: () => api.sessions(userId) });
  const refresh = () => queries.invalidateQueries({ queryKey: key });
  const list = sessions.data?.data;

  return (
    <Stack component="section" aria-labelledby="sessions-heading">
      <Group justify="space-between">
        <Title order={2} size="h3" id="sessions-heading">
          Sessions
        </Title>
        {list?.length ? (
          <ConfirmButton
            label="Revoke all sessions"
            title="Revoke every session?"
            message="The user is signed out everywhere: every refresh token stops working at once."
            confirmLabel="Revoke all"
            onConfirm={async () => {
              await api.revokeAllSessions(userId);
              await refresh();
            }}
          />
        ) : null}
      </Group>
      {sessions.isPending ? <Loading what="sessions" /> : null}
      {sessions.isError ? <ErrorState error={sessions.error} what="sessions" /> : null}
      {list?.length === 0 ? (
        <EmptyState title="No live sessions">This user is not signed in anywhere.</EmptyState>
      ) : null}
      {list?.length ? (
        <Table.ScrollContainer minWidth={560}>
          <Table aria-label="Live sessions">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Started</Table.Th>
                <Table.Th>Last refreshed</Table.Th>
                <Table.Th>Expires</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((s) => (
                <Table.Tr key={s.id}>
                  <Table.Td>
                    <Time iso={s.createdAt} />
                  </Table.Td>
                  <Table.Td>
                    <Time iso={s.refreshedAt} />
                  </Table.Td>
                  <Table.Td>
                    <Time iso={s.expiresAt} />
                  </Table.Td>
                  <Table.Td>
                    <ConfirmButton
                      size="xs"
                      label="Revoke"
                      ariaLabel={`Revoke session started ${formatTime(s.createdAt)}`}
                      title="Revoke this session?"
                      message="The device using it is signed out: its refresh token stops working at once."
                      confirmLabel="Revoke session"
                      onConfirm={async () => {
                        await api.revokeSession(userId, s.id);
                        await refresh();
                      }}
                    />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      ) : null}
    </Stack>
  );
}
