// What an admin does to one backup: download its archive, restore the project from it (the
// backup's name typed to confirm), delete it (confirmed).
import { Button, Group, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { ActionError } from '../../ui/ActionError';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { jsonInit } from '../../ui/json';
import { TypedConfirmDialog } from '../../ui/TypedConfirmDialog';
import { downloadFile } from './download';
import { type Backup, backupsKey, labelOf } from './types';

export function BackupActions({ backup }: { backup: Backup }) {
  const api = useApi();
  const queries = useQueryClient();
  const label = labelOf(backup);
  const [restoring, { open, close }] = useDisclosure(false);
  const download = useMutation({
    mutationFn: () => downloadFile(api, `/api/database/backups/${backup.id}/download`, `${label}.plinth-backup.gz`),
  });
  const restore = useMutation({
    mutationFn: () => api.json<{ message: string }>(`/api/database/backups/${backup.id}/restore`, jsonInit('POST')),
    // Everything on screen may have changed.
    onSuccess: () => queries.invalidateQueries(),
  });
  const remove = useMutation({
    mutationFn: () => api.json(`/api/database/backups/${backup.id}`, jsonInit('DELETE')),
    onSettled: () => queries.invalidateQueries({ queryKey: backupsKey }),
  });
  const completed = backup.status === 'completed';
  return (
    <>
      <Group gap="xs" wrap="wrap">
        <Button
          size="xs"
          variant="default"
          disabled={!completed}
          loading={download.isPending}
          onClick={() => download.mutate()}
          aria-label={`Download ${label}`}
        >
          Download
        </Button>
        <Button
          size="xs"
          color="red.9"
          disabled={!completed}
          loading={restore.isPending}
          onClick={open}
          aria-label={`Restore ${label}`}
        >
          Restore
        </Button>
        <ConfirmButton
          ariaLabel={`Delete ${label}`}
          title={`Delete backup ${label}?`}
          message="The backup and its archive are deleted; it can no longer be restored."
          confirmLabel="Delete backup"
          onConfirm={() => remove.mutateAsync()}
          label="Delete"
          size="xs"
        />
      </Group>
      {restore.isSuccess ? (
        <Text size="sm" role="status">
          {restore.data.message}
        </Text>
      ) : null}
      <ActionError error={download.error ?? restore.error ?? remove.error} title={`Could not act on backup ${label}`} />
      <TypedConfirmDialog
        opened={restoring}
        onClose={close}
        title={`Restore backup ${label}?`}
        message="The project's data and schema are replaced by the backup's, in one transaction. Changes made since the backup are lost."
        phrase={label}
        confirmLabel="Restore backup"
        onConfirm={() => restore.mutate()}
      />
    </>
  );
}
