// The form that creates a bucket: a name and whether anyone may download its objects.
import { Alert, Button, Group, Paper, Switch, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useApi } from '../../api/context';

export function CreateBucketForm({ onCreated }: { onCreated(): void }) {
  const api = useApi();
  const [name, setName] = useState('');
  const [isPublic, setPublic] = useState(false);
  const create = useMutation({
    mutationFn: () =>
      api.json('/api/storage/buckets', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ bucketName: name.trim(), isPublic }),
      }),
    onSuccess: () => {
      setName('');
      onCreated();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };

  return (
    <Paper withBorder p="md" component="form" onSubmit={submit} aria-label="Create a bucket">
      <Group align="flex-end" wrap="wrap">
        <TextInput
          label="Bucket name"
          required
          value={name}
          onChange={(event) => setName(event.currentTarget.value)}
          style={{ flex: '1 1 12rem' }}
        />
        <Switch label="Public" checked={isPublic} onChange={(event) => setPublic(event.currentTarget.checked)} mb={8} />
        <Button type="submit" loading={create.isPending} disabled={!name.trim()}>
          Create bucket
        </Button>
      </Group>
      {create.isError ? (
        <Alert color="red" role="alert" title="The bucket was not created" mt="sm">
          {create.error.message}
        </Alert>
      ) : null}
    </Paper>
  );
}
