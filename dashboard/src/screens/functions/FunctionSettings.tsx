// A function's settings: the verify-JWT switch (calls without a valid credential get 401) and
// deleting the function (confirmed).
import { Alert, Group, Paper, Stack, Switch, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../api/context';
import { navigate } from '../../shell/route';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { type FunctionDetail, functionApi } from './types';

export function FunctionSettings({ fn }: { fn: FunctionDetail }) {
  const api = useApi();
  const queries = useQueryClient();
  const verifyJwt = useMutation({
    mutationFn: (on: boolean) =>
      api.json(functionApi(fn.slug), {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ verifyJwt: on }),
      }),
    onSettled: () => queries.invalidateQueries({ queryKey: ['functions'] }),
  });
  const remove = async () => {
    await api.json(functionApi(fn.slug), { method: 'DELETE' });
    // Leave the page first, so its query of the deleted function is not fetched again (a 404).
    navigate('/functions');
    queries.removeQueries({ queryKey: ['functions', fn.slug] });
    await queries.invalidateQueries({ queryKey: ['functions'], exact: true });
  };

  return (
    <Paper withBorder p="md" aria-label="Function settings" role="region">
      <Group justify="space-between" wrap="wrap">
        <Stack gap={4} style={{ flex: '1 1 16rem' }}>
          <Switch
            label="Verify JWT"
            checked={verifyJwt.isPending ? verifyJwt.variables : fn.verifyJwt}
            disabled={verifyJwt.isPending}
            onChange={(e) => verifyJwt.mutate(e.currentTarget.checked)}
          />
          <Text size="sm">On: calls need a user, anon or API key credential (else 401). Off: anyone may call it.</Text>
        </Stack>
        <ConfirmButton
          ariaLabel={`Delete function ${fn.slug}`}
          title={`Delete function ${fn.slug}?`}
          message="The function is removed from the runtime and its code is deleted. This cannot be undone."
          confirmLabel="Delete function"
          onConfirm={remove}
          label="Delete function"
        />
      </Group>
      {verifyJwt.isError ? (
        <Alert color="red" role="alert" title="The setting was not saved" mt="sm">
          {verifyJwt.error.message}
        </Alert>
      ) : null}
    </Paper>
  );
}
