// The loading, empty and error states every screen shows, in one look; an empty state says the
// next step, with copyable CLI or SDK snippets (ui/next-steps.ts).
import { ActionIcon, Alert, Center, Code, CopyButton, Group, Loader, Stack, Text } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { ApiError } from '../api/client';
import { readableAlertTitle } from '../ui/ActionError';
import type { NextStep } from '../ui/next-steps';

export function Loading({ what }: { what: string }) {
  return (
    <Center py="xl" role="status" aria-live="polite">
      <Stack align="center" gap="xs">
        <Loader aria-hidden="true" />
        <Text>Loading {what}…</Text>
      </Stack>
    </Center>
  );
}

export function ErrorState({ error, what }: { error: unknown; what: string }) {
  const message = error instanceof Error ? error.message : String(error);
  const nextActions = error instanceof ApiError ? error.nextActions : undefined;
  return (
    <Alert color="red" title={`Could not load ${what}`} role="alert">
      <Text size="sm">{message}</Text>
      {nextActions ? <Text size="sm">{nextActions}</Text> : null}
    </Alert>
  );
}

/** A snippet to copy: its kind above it, the code in a block, a copy button beside it. */
export function Snippet({ step }: { step: NextStep }) {
  return (
    <Stack gap={2}>
      <Text size="xs" fw={700}>
        {step.kind}
      </Text>
      <Group gap="xs" align="flex-start" wrap="nowrap">
        <Code block style={{ flex: 1, minWidth: 0, whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
          {step.code}
        </Code>
        <CopyButton value={step.code}>
          {({ copied, copy }) => (
            <ActionIcon
              variant="default"
              size="lg"
              onClick={copy}
              aria-label={copied ? 'Copied' : `Copy the ${step.kind} snippet`}
            >
              {copied ? <IconCheck size={16} aria-hidden /> : <IconCopy size={16} aria-hidden />}
            </ActionIcon>
          )}
        </CopyButton>
      </Group>
    </Stack>
  );
}

export function EmptyState({
  title,
  children,
  next,
}: {
  title: string;
  children: React.ReactNode;
  /** The next step as snippets (CLI, SDK…), shown under the explanation. */
  next?: NextStep[];
}) {
  return (
    <Alert color="gray" title={title} styles={readableAlertTitle}>
      <Stack gap="xs">
        <Text size="sm">{children}</Text>
        {next?.map((step) => (
          <Snippet key={step.code} step={step} />
        ))}
      </Stack>
    </Alert>
  );
}
