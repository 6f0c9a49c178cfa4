// The outcome of an admin action (save, send, create) under its form: the API's message and
// suggested fix on failure, a short confirmation on success; announced to screen readers.
import { Alert, Text } from '@mantine/core';
import { ApiError } from '../api/client';

// The light variant's coloured title falls below WCAG AA contrast; the text colour keeps it.
const readable = { title: { color: 'var(--mantine-color-text)' } };

export function ActionResult({ error, success }: { error?: unknown; success?: string | null }) {
  if (error) {
    const nextActions = error instanceof ApiError ? error.nextActions : undefined;
    return (
      <Alert color="red" role="alert" title="It did not work" styles={readable}>
        <Text size="sm">{error instanceof Error ? error.message : String(error)}</Text>
        {nextActions ? <Text size="sm">{nextActions}</Text> : null}
      </Alert>
    );
  }
  if (success) {
    return (
      <Alert color="green" role="status" title="Done" styles={readable}>
        <Text size="sm">{success}</Text>
      </Alert>
    );
  }
  return null;
}
