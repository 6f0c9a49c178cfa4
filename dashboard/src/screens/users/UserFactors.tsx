// A user's MFA factors (TOTP): name, status, when added; removing one (a lost phone) lets the user
// sign in without it — the last verified one also takes the recovery codes along. Audited.
import { Badge, Stack, Table, Title, VisuallyHidden } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ApiClient } from '../../api/client';
import { useApi } from '../../api/context';
import { jsonBody } from '../../api/json-body';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { Time } from '../../ui/Time';

interface Factor {
  id: string;
  type: 'totp';
  friendlyName: string;
  status: 'unverified' | 'verified';
  createdAt: string;
}

const factorsApi = (api: ApiClient) => ({
  list: (userId: string) => api.json<{ data: Factor[] }>(`/api/auth/users/${userId}/factors`),
  remove: (userId: string, factorId: string) =>
    api.json(`/api/auth/users/${userId}/factors/${factorId}`, jsonBody('DELETE')),
});

export function UserFactors({ userId }: { userId: string }) {
  const api = factorsApi(useApi());
  const queries = useQueryClient();
  const key = ['users', 'factors', userId];
  const factors = useQuery({ queryKey: key, queryFn: () => api.list(userId) });
  const list = factors.data?.data;

  return (
    <Stack component="section" aria-labelledby="factors-heading">
      <Title order={2} size="h3" id="factors-heading">
        MFA factors
      </Title>
      {factors.isPending ? <Loading what="factors" /> : null}
      {factors.isError ? <ErrorState error={factors.error} what="factors" /> : null}
      {list?.length === 0 ? <EmptyState title="No MFA factors">This user signs in with one factor.</EmptyState> : null}
      {list?.length ? (
        <Table.ScrollContainer minWidth={480}>
          <Table aria-label="MFA factors">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Added</Table.Th>
                <Table.Th>
                  <VisuallyHidden>Actions</VisuallyHidden>
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((f) => (
                <Table.Tr key={f.id}>
                  <Table.Td>{f.friendlyName}</Table.Td>
                  <Table.Td>
                    <Badge variant="light" color={f.status === 'verified' ? 'green' : 'gray'}>
                      {f.status}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    <Time iso={f.createdAt} />
                  </Table.Td>
                  <Table.Td>
                    <ConfirmButton
                      size="xs"
                      label="Remove"
                      ariaLabel={`Remove factor ${f.friendlyName}`}
                      title="Remove this factor?"
                      message="The user can no longer use it as a second factor (e.g. the phone was lost)."
                      confirmLabel="Remove factor"
                      onConfirm={async () => {
                        await api.remove(userId, f.id);
                        await queries.invalidateQueries({ queryKey: key });
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
