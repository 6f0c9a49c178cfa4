// A button for a destructive action: it asks first in a dialog, and only "confirm" runs it
// (a failure is shown in the dialog).
import { Alert, Button, type ButtonProps, Group, Modal, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { type ReactNode, useState } from 'react';

export interface ConfirmButtonProps extends ButtonProps {
  /** The button's accessible name (e.g. "Delete photo.png"); its visible text is `children`. */
  label: string;
  title: string;
  message: ReactNode;
  confirmLabel: string;
  onConfirm(): Promise<unknown> | undefined;
  children: ReactNode;
}

export function ConfirmButton({
  label,
  title,
  message,
  confirmLabel,
  onConfirm,
  children,
  ...button
}: ConfirmButtonProps) {
  const [opened, { open, close }] = useDisclosure(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const confirm = async () => {
    setBusy(true);
    setFailure(null);
    try {
      await onConfirm();
      close();
    } catch (err) {
      setFailure(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button color="red" variant="light" {...button} aria-label={label} onClick={open}>
        {children}
      </Button>
      <Modal opened={opened} onClose={close} closeButtonProps={{ 'aria-label': 'Close' }} title={title} centered>
        <Stack>
          <Text size="sm">{message}</Text>
          {failure ? (
            <Alert color="red" role="alert" title="It did not work">
              {failure}
            </Alert>
          ) : null}
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button color="red.9" loading={busy} onClick={confirm}>
              {confirmLabel}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
