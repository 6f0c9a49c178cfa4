// The error of an action the admin took (run, save, apply…): the server's message and the fix it
// suggests, announced to screen readers; nothing while there is no error.
import { Alert, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { ApiError } from '../api/client';

// The light variant's coloured title falls below WCAG AA contrast; the text colour keeps it.
export const readableAlertTitle = { title: { color: 'var(--mantine-color-text)' } };

export function ActionError({
  title = 'It did not work',
  error,
  children,
}: {
  title?: string;
  error: unknown;
  children?: ReactNode;
}) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const nextActions = error instanceof ApiError ? error.nextActions : undefined;
  return (
    <Alert color="red" title={title} role="alert" styles={readableAlertTitle}>
      <Text size="sm">{message}</Text>
      {children}
      {nextActions ? <Text size="sm">{nextActions}</Text> : null}
    </Alert>
  );
}
