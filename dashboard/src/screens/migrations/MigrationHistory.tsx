// The applied migrations, newest first, each opening to the SQL of its statements.
import { Accordion, Code, Group, Stack, Text } from '@mantine/core';
import { EmptyState } from '../../shell/states';
import type { AppliedMigration } from './migration-types';
import { nextSteps } from '../../ui/next-steps';

export function MigrationHistory({ migrations }: { migrations: AppliedMigration[] }) {
  if (migrations.length === 0) {
    return (
      <EmptyState title="No migrations applied yet" next={nextSteps.migrations()}>
        Apply one above, or from the migrations/ folder of your app with the CLI:
      </EmptyState>
    );
  }
  return (
    <Accordion variant="separated" multiple aria-label="Applied migrations">
      {migrations.map((m) => (
        <Accordion.Item key={m.version} value={m.version}>
          <Accordion.Control>
            <Group gap="sm" wrap="wrap">
              <Text ff="monospace" size="sm">
                {m.version}
              </Text>
              <Text fw={600}>{m.name}</Text>
              <Text size="sm">
                {new Date(m.createdAt).toLocaleString()} · {m.statements.length} statement
                {m.statements.length === 1 ? '' : 's'}
              </Text>
            </Group>
          </Accordion.Control>
          <Accordion.Panel>
            <Stack gap="xs">
              {m.statements.map((statement, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: a migration's statements never change or move
                <Code block key={`${m.version}-${i}`} aria-label={`Statement ${i + 1} of ${m.name}`}>
                  {statement}
                </Code>
              ))}
            </Stack>
          </Accordion.Panel>
        </Accordion.Item>
      ))}
    </Accordion>
  );
}
