// A confirmation dialog for destructive actions: says what will happen, shows the failure if the
// action fails, and runs the action only on an explicit click.
import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';

export interface ConfirmDialogProps {
  opened: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm(): void;
  onClose(): void;
  busy?: boolean;
  error?: unknown;
}

export function ConfirmDialog({
  opened,
  title,
  children,
  confirmLabel,
  onConfirm,
  onClose,
  busy,
  error,
}: ConfirmDialogProps) {
  return (
    <Modal closeButtonProps={{ 'aria-label': 'Close' }} opened={opened} onClose={onClose} title={title} centered>
      <Stack>
        <Text size="sm">{children}</Text>
        {error ? (
          <Alert color="red" role="alert" title="It did not work">
            {error instanceof Error ? error.message : String(error)}
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button color="red" loading={busy} onClick={onConfirm}>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
