// The failure of an action the admin just took (a write, a form): the API's message and its hint.
import { Alert, Text } from '@mantine/core';
import { ApiError } from '../api/client';

export function ApiErrorAlert({ error, title = 'It did not work' }: { error: unknown; title?: string }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const nextActions = error instanceof ApiError ? error.nextActions : undefined;
  return (
    <Alert color="red" role="alert" title={title}>
      <Text size="sm">{message}</Text>
      {nextActions ? <Text size="sm">{nextActions}</Text> : null}
    </Alert>
  );
}
