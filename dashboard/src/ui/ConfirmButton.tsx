// A button for a destructive action that asks first: a modal names what will happen and the
// action runs only on the explicit confirm; a failure is shown in the modal.
import { Button, type ButtonProps } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { type ReactNode, useState } from 'react';
import { ConfirmDialog } from './ConfirmDialog';

interface ConfirmButtonProps extends Omit<ButtonProps, 'children' | 'onClick'> {
  /** The button's text (and accessible name). */
  label: string;
  /** An accessible name when the label alone is ambiguous (e.g. "Delete" in a table row). */
  ariaLabel?: string;
  title: string;
  message: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown>;
}

export function ConfirmButton({
  label,
  ariaLabel,
  title,
  message,
  confirmLabel,
  onConfirm,
  ...button
}: ConfirmButtonProps) {
  const [opened, { open, close }] = useDisclosure(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const confirm = async () => {
    setPending(true);
    setError(null);
    try {
      await onConfirm();
      close();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setPending(false);
    }
  };

  return (
    <>
      <Button color="red" variant="light" aria-label={ariaLabel} {...button} onClick={open}>
        {label}
      </Button>
      <ConfirmDialog
        opened={opened}
        onClose={close}
        title={title}
        confirmLabel={confirmLabel}
        onConfirm={confirm}
        busy={pending}
        error={error}
      >
        {message}
      </ConfirmDialog>
    </>
  );
}
