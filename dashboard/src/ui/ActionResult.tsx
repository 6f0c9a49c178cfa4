// The outcome of an admin action (save, send, create) under its form: the API's message and
// suggested fix on failure, a short confirmation on success; announced to screen readers.
import { Alert, Text } from '@mantine/core';
import { ActionError, readableAlertTitle } from './ActionError';

export function ActionResult({ error, success }: { error?: unknown; success?: string | null }) {
  if (error) return <ActionError error={error} />;
  if (success) {
    return (
      <Alert color="green" role="status" title="Done" styles={readableAlertTitle}>
        <Text size="sm">{success}</Text>
      </Alert>
    );
  }
  return null;
}
