// The error of an action the admin just tried (a failed save, run or delete), with the API's fix.
import { Alert, Text } from '@mantine/core';
import { ApiError } from '../api/client';

export function ActionError({ error, action }: { error: unknown; action: string }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const nextActions = error instanceof ApiError ? error.nextActions : undefined;
  return (
    <Alert color="red" title={`Could not ${action}`} role="alert">
      <Text size="sm">{message}</Text>
      {nextActions ? <Text size="sm">{nextActions}</Text> : null}
    </Alert>
  );
}
