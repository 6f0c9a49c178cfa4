// The redirect allowlist: where email links and OAuth may send the browser back to (https URLs,
// a wildcard only as the first host label, or app deep links).
import { Button, Group, Paper, Stack, Table, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { EmptyState, ErrorState, Loading } from '../../shell/states';
import { ActionResult } from '../../ui/ActionResult';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { useAuthConfig } from './use-auth-config';
import { onSubmit } from '../../ui/on-submit';

export function RedirectAllowlist() {
  const { config, save } = useAuthConfig();
  const [entry, setEntry] = useState('');
  if (config.isPending) return <Loading what="redirect allowlist" />;
  if (config.isError) return <ErrorState error={config.error} what="redirect allowlist" />;
  const urls = config.data.allowedRedirectUrls;

  const add = onSubmit(() => {
    const url = entry.trim();
    if (!url || urls.includes(url)) return;
    save.mutate({ allowedRedirectUrls: [...urls, url] }, { onSuccess: () => setEntry('') });
  });

  return (
    <Stack>
      <Paper withBorder p="md" component="form" onSubmit={add}>
        <Stack>
          <TextInput
            label="Redirect URL"
            description="e.g. https://app.example.com/auth/callback, https://*.example.com/cb or myapp://callback"
            value={entry}
            onChange={(e) => setEntry(e.currentTarget.value)}
          />
          <Group>
            <Button type="submit" loading={save.isPending}>
              Add redirect URL
            </Button>
          </Group>
          <ActionResult error={save.error} />
        </Stack>
      </Paper>
      {urls.length === 0 ? (
        <EmptyState title="No redirect URLs">
          Links in emails and OAuth sign-in may only return to URLs listed here.
        </EmptyState>
      ) : (
        <Table aria-label="Allowed redirect URLs">
          <Table.Tbody>
            {urls.map((url) => (
              <Table.Tr key={url}>
                <Table.Td>
                  <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                    {url}
                  </Text>
                </Table.Td>
                <Table.Td ta="right">
                  <ConfirmButton
                    size="xs"
                    label="Remove"
                    ariaLabel={`Remove ${url}`}
                    title="Remove this redirect URL?"
                    message={`Links and sign-ins can no longer return to ${url}.`}
                    confirmLabel="Remove"
                    onConfirm={() => save.mutateAsync({ allowedRedirectUrls: urls.filter((u) => u !== url) })}
                  />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
