// The dry run's verdict: SAFE, WARNING or DANGER, how many statements, and each risk with the
// statement it comes from (shared by the SQL editor and the migrations screen).
import { Alert, Code, Group, List, Stack, Text } from '@mantine/core';
import type { DryRunResult } from './sql-types';

const COLOR = { SAFE: 'green', WARNING: 'yellow', DANGER: 'red' } as const;

export function RiskReport({ report }: { report: DryRunResult }) {
  return (
    <Alert color={COLOR[report.riskLevel]} title={`Dry run: ${report.riskLevel}`} role="status" variant="light">
      <Stack gap="xs">
        <Group gap="xs">
          <Text size="sm" fw={700}>
            Risk {report.riskLevel}
          </Text>
          <Text size="sm">
            {report.statementCount} statement{report.statementCount === 1 ? '' : 's'},{' '}
            {report.valid ? 'ran and rolled back without error' : 'would fail'}
          </Text>
        </Group>
        {report.riskFactors.length === 0 ? (
          <Text size="sm">No risks found.</Text>
        ) : (
          <List size="sm" spacing="xs">
            {report.riskFactors.map((f, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: one report's factors never change or move
              <List.Item key={`${i}-${f.code}`}>
                <Text size="sm" span fw={600}>
                  {f.level} {f.code}:
                </Text>{' '}
                <Text size="sm" span>
                  {f.description}
                </Text>
                {f.statement ? (
                  <Code block mt={4}>
                    {f.statement}
                  </Code>
                ) : null}
              </List.Item>
            ))}
          </List>
        )}
      </Stack>
    </Alert>
  );
}
