// Email templates: pick one, edit its subject and HTML ({{code}}, {{link}}, {{email}},
// {{expiresInMinutes}}), preview it rendered with sample values by the server, and save it.
import { Badge, Button, Group, Paper, Select, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useApi } from '../../api/context';
import { ErrorState, Loading } from '../../shell/states';
import { ActionResult } from '../../ui/ActionResult';
import { authSettingsApi } from './auth-settings-api';
import { onSubmit } from '../../ui/on-submit';

function Preview({ subject, html }: { subject: string; html: string }) {
  return (
    <Paper withBorder p="md" component="section" aria-labelledby="preview-heading">
      <Stack gap="xs">
        <Title order={3} size="h4" id="preview-heading">
          Preview
        </Title>
        <Text size="sm">
          <strong>Subject:</strong> {subject}
        </Text>
        {/* Scripts never run in the preview: an empty sandbox. */}
        <iframe
          title="Rendered email preview"
          sandbox=""
          srcDoc={html}
          style={{ width: '100%', minHeight: 220, border: 0, background: 'white' }}
        />
      </Stack>
    </Paper>
  );
}

export function EmailTemplates() {
  const api = authSettingsApi(useApi());
  const queries = useQueryClient();
  const templates = useQuery({ queryKey: ['email-templates'], queryFn: api.templates });
  const [type, setType] = useState<string | null>(null);
  const [subject, setSubject] = useState('');
  const [bodyHtml, setBodyHtml] = useState('');
  const current = templates.data?.data.find((t) => t.type === type);
  useEffect(() => {
    if (!type && templates.data?.data[0]) setType(templates.data.data[0].type);
  }, [type, templates.data]);
  useEffect(() => {
    if (current) {
      setSubject(current.subject);
      setBodyHtml(current.bodyHtml);
    }
  }, [current]);
  const preview = useMutation({ mutationFn: () => api.previewTemplate(type!, { subject, bodyHtml }) });
  const save = useMutation({
    mutationFn: () => api.saveTemplate(type!, { subject, bodyHtml }),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['email-templates'] }),
  });
  if (templates.isPending) return <Loading what="email templates" />;
  if (templates.isError) return <ErrorState error={templates.error} what="email templates" />;

  const submit = onSubmit(() => save.mutate());

  return (
    <Stack>
      <Paper withBorder p="md" component="form" onSubmit={submit}>
        <Stack>
          <Group align="flex-end">
            <Select
              label="Template"
              data={templates.data.data.map((t) => t.type)}
              value={type}
              onChange={(v) => {
                setType(v);
                preview.reset();
                save.reset();
              }}
              allowDeselect={false}
            />
            {current ? (
              <Badge color={current.isDefault ? 'gray.8' : 'indigo.9'}>
                {current.isDefault ? 'Default' : 'Custom'}
              </Badge>
            ) : null}
          </Group>
          <TextInput label="Subject" required value={subject} onChange={(e) => setSubject(e.currentTarget.value)} />
          <Textarea
            label="HTML body"
            description="Placeholders: {{code}}, {{link}}, {{email}}, {{expiresInMinutes}}"
            required
            autosize
            minRows={6}
            styles={{ input: { fontFamily: 'monospace' } }}
            value={bodyHtml}
            onChange={(e) => setBodyHtml(e.currentTarget.value)}
          />
          <ActionResult error={save.error ?? preview.error} success={save.isSuccess ? 'Template saved.' : null} />
          <Group>
            <Button variant="default" onClick={() => preview.mutate()} loading={preview.isPending} disabled={!type}>
              Preview
            </Button>
            <Button type="submit" loading={save.isPending} disabled={!type}>
              Save template
            </Button>
          </Group>
        </Stack>
      </Paper>
      {preview.data ? <Preview subject={preview.data.subject} html={preview.data.html} /> : null}
    </Stack>
  );
}
