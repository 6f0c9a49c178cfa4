// Sites: the app's front end hosted by Plinth. The site's address and settings (slug, single-page
// app fallback, retention), its custom domains, and the deployments: status, the live one, build
// logs, and making any READY one live again (rollback).
import {
  Anchor,
  Badge,
  Button,
  Code,
  Group,
  Loader,
  Modal,
  NumberInput,
  Paper,
  ScrollArea,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useApi } from '../../api/context';
import { ActionError } from '../../ui/ActionError';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { formatTime } from '../../ui/format';
import { jsonInit } from '../../ui/json';
import { QueryTable } from '../../ui/QueryTable';
import { nextSteps } from '../../ui/next-steps';

interface Site {
  slug: string;
  url: string;
  urls: string[];
  liveDeploymentId: string | null;
  spaFallback: boolean;
  retention: number;
  buildsEnabled: boolean;
  domains: string[];
}

interface Deployment {
  id: string;
  status: 'WAITING' | 'UPLOADING' | 'QUEUED' | 'BUILDING' | 'READY' | 'ERROR' | 'CANCELED';
  url: string | null;
  live: boolean;
  createdAt: string;
  metadata: { error?: string; fileCount?: number; servedFileCount?: number; uploadMode?: string } | null;
}

const siteKey = ['sites', 'site'];
const deploymentsKey = ['sites', 'deployments'];
const STATUS_COLOR: Record<Deployment['status'], string> = {
  WAITING: 'gray.7',
  UPLOADING: 'gray.7',
  QUEUED: 'blue.9',
  BUILDING: 'blue.9',
  READY: 'teal.9',
  ERROR: 'red.9',
  CANCELED: 'gray.7',
};

function SiteSettings({ site }: { site: Site }) {
  const api = useApi();
  const queries = useQueryClient();
  const [slug, setSlug] = useState(site.slug);
  const [retention, setRetention] = useState<number | string>(site.retention);
  const refresh = () => queries.invalidateQueries({ queryKey: ['sites'] });
  const saveSlug = useMutation({
    mutationFn: () => api.json('/api/deployments/slug', jsonInit('PUT', { slug: slug.trim() })),
    onSettled: refresh,
  });
  const update = useMutation({
    mutationFn: (change: { spaFallback?: boolean; retention?: number }) =>
      api.json<Site>('/api/deployments/site', jsonInit('PATCH', change)),
    onSettled: refresh,
  });
  const submitSlug = (event: FormEvent) => {
    event.preventDefault();
    saveSlug.mutate();
  };
  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Text>
          Live at{' '}
          <Anchor href={site.url} target="_blank" rel="noreferrer">
            {site.url}
          </Anchor>
          {site.liveDeploymentId ? null : ' (nothing deployed yet)'}
        </Text>
        {site.urls.length > 1 ? (
          <Text size="sm">Also at: {site.urls.filter((u) => u !== site.url).join(', ')}</Text>
        ) : null}
        {site.buildsEnabled ? null : (
          <Text size="sm">Builds are switched off on this server (SITES_BUILDS=false).</Text>
        )}
        <form onSubmit={submitSlug} aria-label="Site slug">
          <Group align="flex-end" wrap="wrap">
            <TextInput label="Slug" value={slug} onChange={(e) => setSlug(e.currentTarget.value)} maxLength={63} />
            <Button type="submit" variant="default" loading={saveSlug.isPending}>
              Save slug
            </Button>
          </Group>
        </form>
        <Group align="flex-end" wrap="wrap">
          <Switch
            label="Single-page app: unknown paths answer index.html"
            checked={site.spaFallback}
            onChange={(e) => update.mutate({ spaFallback: e.currentTarget.checked })}
          />
          <NumberInput label="Deployments kept" min={1} max={1000} value={retention} onChange={setRetention} w={160} />
          <Button
            variant="default"
            loading={update.isPending}
            onClick={() => update.mutate({ retention: Number(retention) })}
          >
            Save retention
          </Button>
        </Group>
        <ActionError error={saveSlug.error ?? update.error} title="Could not change the site" />
      </Stack>
    </Paper>
  );
}

function Domains({ site }: { site: Site }) {
  const api = useApi();
  const queries = useQueryClient();
  const [domain, setDomain] = useState('');
  const refresh = () => queries.invalidateQueries({ queryKey: ['sites'] });
  const add = useMutation({
    mutationFn: () => api.json('/api/deployments/domains', jsonInit('POST', { domain: domain.trim() })),
    onSuccess: () => setDomain(''),
    onSettled: refresh,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };
  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Title order={2} size="h4">
          Custom domains
        </Title>
        {site.domains.length === 0 ? <Text size="sm">No custom domains.</Text> : null}
        {site.domains.map((d) => (
          <Group key={d} justify="space-between">
            <Text>{d}</Text>
            <ConfirmButton
              size="xs"
              label="Remove"
              ariaLabel={`Remove ${d}`}
              title={`Remove ${d}?`}
              message="Requests for this host no longer reach the site."
              confirmLabel="Remove domain"
              onConfirm={async () => {
                await api.json(`/api/deployments/domains/${encodeURIComponent(d)}`, jsonInit('DELETE'));
                await refresh();
              }}
            />
          </Group>
        ))}
        <form onSubmit={submit} aria-label="Add a domain">
          <Group align="flex-end" wrap="wrap">
            <TextInput
              label="Domain"
              placeholder="www.example.com"
              value={domain}
              onChange={(e) => setDomain(e.currentTarget.value)}
            />
            <Button type="submit" variant="default" loading={add.isPending} disabled={!domain.trim()}>
              Add domain
            </Button>
          </Group>
        </form>
        <ActionError error={add.error} title="Could not add the domain" />
      </Stack>
    </Paper>
  );
}

function BuildLog({ id, onClose }: { id: string; onClose: () => void }) {
  const api = useApi();
  const log = useQuery({
    queryKey: ['sites', 'log', id],
    queryFn: () => api.json<{ log: string | null }>(`/api/deployments/${id}/logs`),
  });
  return (
    <Modal opened onClose={onClose} title={`Build log of ${id.slice(0, 8)}`} size="xl">
      {log.isPending ? <Loader size="sm" aria-label="Loading the log" /> : null}
      <ActionError error={log.error} title="Could not load the log" />
      {log.data ? (
        <ScrollArea h={400}>
          <Code block>{log.data.log ?? 'No build: this deployment was published as uploaded.'}</Code>
        </ScrollArea>
      ) : null}
    </Modal>
  );
}

function DeploymentActions({ deployment, onLog }: { deployment: Deployment; onLog: () => void }) {
  const api = useApi();
  const queries = useQueryClient();
  const promote = useMutation({
    mutationFn: () => api.json(`/api/deployments/${deployment.id}/promote`, jsonInit('POST')),
    onSettled: () => queries.invalidateQueries({ queryKey: ['sites'] }),
  });
  const short = deployment.id.slice(0, 8);
  return (
    <>
      <Group gap="xs" wrap="wrap">
        <Button
          size="xs"
          variant="default"
          disabled={deployment.status !== 'READY' || deployment.live}
          loading={promote.isPending}
          onClick={() => promote.mutate()}
          aria-label={`Make live: ${short}`}
        >
          Make live
        </Button>
        <Button size="xs" variant="default" onClick={onLog} aria-label={`Build log of ${short}`}>
          Log
        </Button>
      </Group>
      <ActionError error={promote.error} title={`Could not make ${short} live`} />
    </>
  );
}

export default function SitesScreen() {
  const api = useApi();
  const [logOf, setLogOf] = useState<string | null>(null);
  const site = useQuery({ queryKey: siteKey, queryFn: () => api.json<Site>('/api/deployments/site') });
  const deployments = useQuery({
    queryKey: deploymentsKey,
    queryFn: () => api.json<Deployment[]>('/api/deployments?limit=100'),
    // While one builds, its progress is polled.
    refetchInterval: (query) =>
      query.state.data?.some((d) => d.status === 'QUEUED' || d.status === 'BUILDING' || d.status === 'UPLOADING')
        ? 2000
        : false,
  });
  return (
    <Stack>
      <Title order={1} size="h2">
        Sites
      </Title>
      {site.data ? (
        <>
          <SiteSettings key={`${site.data.slug}-${site.data.retention}`} site={site.data} />
          <Domains site={site.data} />
        </>
      ) : (
        <ActionError error={site.error} title="Could not load the site" />
      )}
      <QueryTable
        label="Deployments"
        emptyTitle="No deployments yet"
        empty="Deploy your built front end with the CLI (or the agent's create-deployment tool):"
        next={nextSteps.sites()}
        minWidth={760}
        query={deployments}
        rowKey={(d) => d.id}
        columns={[
          {
            header: 'Deployment',
            cell: (d) => (
              <>
                <Text size="sm" ff="monospace">
                  {d.id.slice(0, 8)}
                </Text>
                <Text size="xs">{formatTime(d.createdAt)}</Text>
              </>
            ),
          },
          {
            header: 'Status',
            cell: (d) => (
              <>
                <Group gap={6} wrap="nowrap">
                  {d.status === 'QUEUED' || d.status === 'BUILDING' ? <Loader size="xs" aria-hidden="true" /> : null}
                  <Badge color={STATUS_COLOR[d.status]}>{d.status}</Badge>
                  {d.live ? (
                    <Badge color="teal.9" variant="outline" c="var(--mantine-color-text)">
                      live
                    </Badge>
                  ) : null}
                </Group>
                {d.metadata?.error ? <Text size="xs">{d.metadata.error}</Text> : null}
              </>
            ),
          },
          { header: 'Files', cell: (d) => String(d.metadata?.servedFileCount ?? d.metadata?.fileCount ?? '') },
          { header: 'Actions', cell: (d) => <DeploymentActions deployment={d} onLog={() => setLogOf(d.id)} /> },
        ]}
      />
      {logOf ? <BuildLog id={logOf} onClose={() => setLogOf(null)} /> : null}
    </Stack>
  );
}
