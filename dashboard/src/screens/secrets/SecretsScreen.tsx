// Secrets: the project's secrets (values are write-only: never shown), created, replaced and
// deleted here; and rotation of the API and anon keys.
import { Badge, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { HorizontalScroll } from '../../ui/HorizontalScroll';
import { Time } from '../../ui/Time';
import { CreateSecretForm } from './CreateSecretForm';
import { KeyRotation } from './KeyRotation';
import { secretsApi } from './secrets-api';
import { UpdateSecretButton } from './UpdateSecretButton';
import { nextSteps } from '../../ui/next-steps';

export default function SecretsScreen() {
  const api = secretsApi(useApi());
  const queries = useQueryClient();
  const secrets = useQuery({ queryKey: ['secrets'], queryFn: api.list });
  const refresh = () => queries.invalidateQueries({ queryKey: ['secrets'] });
  const active = secrets.data?.secrets.filter((s) => s.isActive);
  // The platform's reserved secrets (keys) are always there: the empty state is about the app's own.
  const own = active?.filter((s) => !s.isReserved);

  return (
    <Stack>
      <Title order={1} size="h2">
        Secrets
      </Title>
      <KeyRotation />
      <Title order={2} size="h3">
        Project secrets
      </Title>
      <CreateSecretForm onCreated={refresh} />
      {secrets.isPending ? <Loading what="secrets" /> : null}
      {secrets.isError ? <ErrorState error={secrets.error} what="secrets" /> : null}
      {own?.length === 0 ? (
        <EmptyState title="No secrets yet" next={nextSteps.secrets()}>
          Functions read the secrets created here, or with the CLI, as environment variables.
        </EmptyState>
      ) : null}
      {active?.length ? (
        // Reserved rows have no buttons: the scrolling region itself takes focus (keyboard scrolling).
        <HorizontalScroll label="Secrets table">
          <Table striped aria-label="Secrets" miw={640}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Key</Table.Th>
                <Table.Th>Value</Table.Th>
                <Table.Th>Last used</Table.Th>
                <Table.Th>Updated</Table.Th>
                <Table.Th>Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {active.map((s) => (
                <Table.Tr key={s.id}>
                  <Table.Td>
                    {s.key} {s.isReserved ? <Badge color="gray.8">Reserved</Badge> : null}
                  </Table.Td>
                  <Table.Td>
                    <Badge color="gray.8">Hidden</Badge>
                  </Table.Td>
                  <Table.Td>
                    <Time iso={s.lastUsedAt} />
                  </Table.Td>
                  <Table.Td>
                    <Time iso={s.updatedAt} />
                  </Table.Td>
                  <Table.Td>
                    {s.isReserved ? (
                      <Text size="sm">Managed by Plinth</Text>
                    ) : (
                      <Group gap="xs" wrap="nowrap">
                        <UpdateSecretButton secretKey={s.key} onUpdated={refresh} />
                        <ConfirmButton
                          size="xs"
                          label="Delete"
                          ariaLabel={`Delete ${s.key}`}
                          title={`Delete ${s.key}?`}
                          message="Functions will no longer see this secret."
                          confirmLabel="Delete secret"
                          onConfirm={() => api.remove(s.key).then(refresh)}
                        />
                      </Group>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </HorizontalScroll>
      ) : null}
    </Stack>
  );
}
