// The loading, empty and error states every screen shows, in one look.
import { Alert, Center, Loader, Stack, Text } from '@mantine/core';
import { ApiError } from '../api/client';

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

export function EmptyState({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Alert color="gray" title={title}>
      <Text size="sm">{children}</Text>
    </Alert>
  );
}
