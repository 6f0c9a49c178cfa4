// One function: its status and settings, its activity, the code editor with deploy, invoking it,
// and its live logs.
import { Badge, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Suspense, useEffect } from 'react';
import { useApi } from '../../api/context';
import { StatusBadge } from '../../ui/StatusBadge';
import { Link } from '../../shell/Link';
import { ErrorState, Loading } from '../../shell/states';
import { lazyWithPreload } from '../../ui/lazy-preload';
import { CodeEditor, FunctionEditor } from './FunctionEditor';
import { FunctionSettings } from './FunctionSettings';
import { InvokePanel } from './InvokePanel';
import { LiveLogs } from './LiveLogs';
import { type FunctionDetail, functionApi } from './types';

const FunctionActivity = lazyWithPreload(() => import('./FunctionActivity'));

export default function FunctionPage({ slug }: { slug: string }) {
  const api = useApi();
  const fn = useQuery({
    queryKey: ['functions', slug],
    queryFn: () => api.json<FunctionDetail>(functionApi(slug)),
  });
  // The chart and the code editor show once the function is read: their chunks load meanwhile.
  useEffect(() => {
    FunctionActivity.preload();
    CodeEditor.preload();
  }, []);

  return (
    <Stack>
      <Text size="sm">
        <Link to="/functions">Functions</Link> / {slug}
      </Text>
      <Group gap="sm" wrap="wrap">
        <Title order={1} size="h2">
          Function {slug}
        </Title>
        {fn.data ? (
          <>
            <StatusBadge tone={fn.data.status === 'active' ? 'good' : 'neutral'}>{fn.data.status}</StatusBadge>
            <Badge variant="outline">version {fn.data.version}</Badge>
          </>
        ) : null}
      </Group>
      {fn.isPending ? <Loading what="the function" /> : null}
      {fn.isError ? <ErrorState error={fn.error} what="the function" /> : null}
      {fn.data ? (
        <>
          <FunctionSettings fn={fn.data} />
          <Suspense fallback={<Loading what="the function's activity" />}>
            <FunctionActivity slug={slug} />
          </Suspense>
          <FunctionEditor existing={fn.data} />
          <SimpleGrid cols={{ base: 1, lg: 2 }}>
            <InvokePanel slug={slug} />
            <LiveLogs slug={slug} />
          </SimpleGrid>
        </>
      ) : null}
    </Stack>
  );
}
