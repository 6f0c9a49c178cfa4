// The WebAuthn relying party passkeys are bound to: read-only, from the server's configuration
// (WEBAUTHN_RP_ID, WEBAUTHN_RP_NAME, WEBAUTHN_ORIGINS; defaults from API_BASE_URL).
import { Code, List, Stack, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { ErrorState, Loading } from '../../shell/states';

interface RelyingParty {
  rpId: string;
  rpName: string;
  origins: string[];
}

export function PasskeySettings() {
  const api = useApi();
  const rp = useQuery({
    queryKey: ['auth', 'passkeys', 'relying-party'],
    queryFn: () => api.json<RelyingParty>('/api/auth/passkeys/relying-party'),
  });
  if (rp.isPending) return <Loading what="passkey settings" />;
  if (rp.isError) return <ErrorState error={rp.error} what="passkey settings" />;
  return (
    <Stack>
      <Text>
        Passkeys are bound to this relying party. Change it with the server's WEBAUTHN_RP_ID, WEBAUTHN_RP_NAME and
        WEBAUTHN_ORIGINS settings; passkeys made for another RP id stop working.
      </Text>
      <Table aria-label="Passkey relying party" withTableBorder>
        <Table.Tbody>
          <Table.Tr>
            <Table.Th>RP id</Table.Th>
            <Table.Td>
              <Code>{rp.data.rpId}</Code>
            </Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>RP name</Table.Th>
            <Table.Td>{rp.data.rpName}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>Allowed origins</Table.Th>
            <Table.Td>
              <List size="sm">
                {rp.data.origins.map((o) => (
                  <List.Item key={o}>
                    <Code>{o}</Code>
                  </List.Item>
                ))}
              </List>
            </Table.Td>
          </Table.Tr>
        </Table.Tbody>
      </Table>
    </Stack>
  );
}
