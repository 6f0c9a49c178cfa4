// A button for a destructive action that first asks, in a dialog, whether to go ahead.
import { Button, type ButtonProps, Group, Modal, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import type { ReactNode } from 'react';

interface ConfirmButtonProps extends Omit<ButtonProps, 'onClick'> {
  /** The button's text (also its accessible name unless `aria-label` is given). */
  children: ReactNode;
  'aria-label'?: string;
  /** The dialog's title, e.g. "Delete channel orders:%?". */
  title: string;
  /** What will happen, said plainly. */
  message: ReactNode;
  confirmLabel?: string;
  onConfirm(): void;
}

export function ConfirmButton({ children, title, message, confirmLabel, onConfirm, ...button }: ConfirmButtonProps) {
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <>
      <Button color="red.9" variant="outline" size="xs" {...button} onClick={open}>
        {children}
      </Button>
      <Modal opened={opened} onClose={close} title={title} centered closeButtonProps={{ 'aria-label': 'Close' }}>
        <Stack>
          <Text size="sm">{message}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button
              color="red.9"
              onClick={() => {
                close();
                onConfirm();
              }}
            >
              {confirmLabel ?? 'Confirm'}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
