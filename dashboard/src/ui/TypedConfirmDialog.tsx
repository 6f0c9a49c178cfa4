// A dialog for an action that cannot be undone: the admin types a given phrase (e.g. a backup's
// name) before the confirm button works.
import { Button, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { type ReactNode, useState } from 'react';

interface TypedConfirmDialogProps {
  opened: boolean;
  onClose(): void;
  title: string;
  message: ReactNode;
  /** What must be typed, exactly. */
  phrase: string;
  confirmLabel: string;
  onConfirm(): void;
}

export function TypedConfirmDialog({
  opened,
  onClose,
  title,
  message,
  phrase,
  confirmLabel,
  onConfirm,
}: TypedConfirmDialogProps) {
  const [typed, setTyped] = useState('');
  const close = () => {
    setTyped('');
    onClose();
  };
  return (
    <Modal opened={opened} onClose={close} title={title} centered closeButtonProps={{ 'aria-label': 'Close' }}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (typed !== phrase) return;
          close();
          onConfirm();
        }}
      >
        <Stack>
          <Text size="sm">{message}</Text>
          <TextInput
            label={`Type ${phrase} to confirm`}
            value={typed}
            onChange={(event) => setTyped(event.currentTarget.value)}
            autoComplete="off"
            data-autofocus
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button type="submit" color="red.9" disabled={typed !== phrase}>
              {confirmLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
