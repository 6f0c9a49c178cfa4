// Writing and deploying a function: name and slug (new ones), the code, and Deploy. A deploy that
// does not load stores nothing and its error is marked at the line the server reports.
import { Alert, Button, Group, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, Suspense, useState } from 'react';
import { ApiError } from '../../api/client';
import { useApi } from '../../api/context';
import { navigate } from '../../shell/route';
import { Loading } from '../../shell/states';
import { lazyWithPreload } from '../../ui/lazy-preload';
import type { CodeError } from './CodeEditor';
import { type FunctionDetail, type FunctionWrite, functionApi } from './types';

// CodeMirror is most of this screen's weight: it loads only where code is edited.
export const CodeEditor = lazyWithPreload(() => import('./CodeEditor'));

const STARTER = `export default async function (req: Request): Promise<Response> {
  const body = await req.json().catch(() => null);
  return Response.json({ hello: 'world', received: body });
}
`;

/** The line (and column) of a deploy error, when the server reported one. */
function codeErrorOf(error: unknown): CodeError | null {
  if (!(error instanceof ApiError)) return null;
  const details = error.details as { line?: unknown; column?: unknown } | undefined;
  if (typeof details?.line !== 'number') return null;
  return {
    line: details.line,
    column: typeof details.column === 'number' ? details.column : null,
    message: error.message,
  };
}

export function FunctionEditor({ existing }: { existing?: FunctionDetail }) {
  const api = useApi();
  const queries = useQueryClient();
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [code, setCode] = useState(existing?.code ?? STARTER);

  const deploy = useMutation({
    mutationFn: () => {
      const body = existing ? { code } : { name: name.trim(), ...(slug.trim() ? { slug: slug.trim() } : {}), code };
      return api.json<FunctionWrite>(existing ? functionApi(existing.slug) : '/api/functions', {
        method: existing ? 'PUT' : 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    },
    onSuccess: async (answer) => {
      await queries.invalidateQueries({ queryKey: ['functions'] });
      if (!existing) navigate(`/functions/${encodeURIComponent(answer.function.slug)}`);
    },
  });
  const codeError = codeErrorOf(deploy.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    deploy.mutate();
  };

  return (
    <Paper withBorder p="md" component="form" onSubmit={submit} aria-label="Function code">
      <Stack>
        {existing ? (
          <Title order={2} size="h4">
            Code
          </Title>
        ) : (
          <>
            <Title order={1} size="h2">
              New function
            </Title>
            <Group grow wrap="wrap" align="flex-start">
              <TextInput label="Name" required value={name} onChange={(e) => setName(e.currentTarget.value)} />
              <TextInput
                label="Slug (optional: from the name)"
                value={slug}
                onChange={(e) => setSlug(e.currentTarget.value)}
              />
            </Group>
          </>
        )}
        <Suspense fallback={<Loading what="the code editor" />}>
          <CodeEditor
            label="Function code (TypeScript or JavaScript)"
            value={code}
            onChange={setCode}
            error={codeError}
          />
        </Suspense>
        {deploy.isError ? (
          <Alert color="red" role="alert" title={codeError ? `Syntax error at line ${codeError.line}` : 'Not deployed'}>
            <Text size="sm">{deploy.error.message}</Text>
            {deploy.error instanceof ApiError && deploy.error.nextActions ? (
              <Text size="sm">{deploy.error.nextActions}</Text>
            ) : null}
          </Alert>
        ) : null}
        {deploy.isSuccess && existing ? (
          <Text size="sm" role="status">
            Deployed version {deploy.data.function.version}.
          </Text>
        ) : null}
        <Group justify="flex-end">
          <Button type="submit" loading={deploy.isPending} disabled={!existing && !name.trim()}>
            Deploy
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
