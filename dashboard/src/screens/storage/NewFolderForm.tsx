// Opens a new folder under the current one. Folders are key prefixes: it exists once a file is
// uploaded into it.
import { Button, Group, TextInput } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { navigate } from '../../shell/route';
import { browsePath, type Place } from './paths';

export function NewFolderForm({ place }: { place: Place }) {
  const [name, setName] = useState('');
  const folder = name.trim().replace(/^\/+|\/+$/g, '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (folder) navigate(browsePath({ bucket: place.bucket, prefix: `${place.prefix}${folder}/` }));
  };
  return (
    <Group component="form" onSubmit={submit} align="flex-end" wrap="wrap">
      <TextInput
        label="New folder"
        value={name}
        onChange={(event) => setName(event.currentTarget.value)}
        style={{ flex: '1 1 12rem' }}
      />
      <Button type="submit" variant="default" disabled={!folder}>
        Open folder
      </Button>
    </Group>
  );
}
