// A dialog that asks before a destructive or risky action: what will happen, the failure if the
// action failed, then Cancel or the action itself (red when it destroys something).
import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';

export interface ConfirmDialogProps {
  opened: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  /** Red confirm button (the default): the action destroys something. */
  danger?: boolean;
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
  danger = true,
  onConfirm,
  onClose,
  busy,
  error,
}: ConfirmDialogProps) {
  return (
    <Modal opened={opened} onClose={onClose} title={title} centered closeButtonProps={{ 'aria-label': 'Close' }}>
      <Stack>
        {typeof children === 'string' ? <Text size="sm">{children}</Text> : children}
        {error ? (
          <Alert color="red" role="alert" title="It did not work">
            {error instanceof Error ? error.message : String(error)}
          </Alert>
        ) : null}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button color={danger ? 'red.9' : undefined} loading={busy} onClick={onConfirm}>
            {confirmLabel}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
