// The outcome of the admin's test sign-in through a SAML identity provider, where the browser
// lands after the IdP answered: the user the assertion names and every attribute it carries, or
// why Plinth refused it. The test signed nobody in.
import { Alert, Code, Stack, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { readableAlertTitle } from '../../ui/ActionError';
import { ErrorState, Loading } from '../../shell/states';

type TestOutcome =
  | {
      passed: true;
      nameId: string;
      email: string;
      name: string | null;
      mapped: Record<string, string | undefined>;
      attributes: Record<string, unknown>;
    }
  | { passed: false; error: string; message: string };

interface TestResult {
  id: string;
  providerId: string;
  status: 'pending' | 'passed' | 'failed';
  result?: TestOutcome;
}

const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function Facts({ label, rows }: { label: string; rows: [string, unknown][] }) {
  return (
    <Table aria-label={label} withTableBorder>
      <Table.Tbody>
        {rows.map(([key, value]) => (
          <Table.Tr key={key}>
            <Table.Th>{key}</Table.Th>
            <Table.Td style={{ overflowWrap: 'anywhere' }}>
              <Code>{shown(value)}</Code>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

export function SsoTestResult({ testId }: { testId: string }) {
  const api = useApi();
  const test = useQuery({
    queryKey: ['sso', 'tests', testId],
    queryFn: () => api.json<TestResult>(`/api/auth/sso/tests/${encodeURIComponent(testId)}`),
  });
  if (test.isPending) return <Loading what="the test sign-in" />;
  if (test.isError) return <ErrorState error={test.error} what="the test sign-in" />;
  const { result } = test.data;
  if (!result) {
    return (
      <Alert color="gray" role="status" title="Test sign-in pending" styles={readableAlertTitle}>
        <Text size="sm">The identity provider has not answered yet.</Text>
      </Alert>
    );
  }
  if (!result.passed) {
    return (
      <Alert color="red" role="alert" title="Test sign-in failed" styles={readableAlertTitle}>
        <Text size="sm">{result.message}</Text>
        <Text size="xs" c="dimmed">
          {result.error}
        </Text>
      </Alert>
    );
  }
  return (
    <Stack gap="xs">
      <Alert color="green" role="status" title="Test sign-in passed" styles={readableAlertTitle}>
        <Text size="sm">
          The identity provider signed in {result.email}. Every check passed; the test signed nobody in.
        </Text>
      </Alert>
      <Facts
        label="The signed-in user"
        rows={[
          ['Email', result.email],
          ['Name', result.name ?? '—'],
          ['NameID', result.nameId],
          ...Object.entries(result.mapped).map(([key, value]): [string, unknown] => [`mapped ${key}`, value ?? '—']),
        ]}
      />
      <Facts label="Assertion attributes" rows={Object.entries(result.attributes)} />
    </Stack>
  );
}
