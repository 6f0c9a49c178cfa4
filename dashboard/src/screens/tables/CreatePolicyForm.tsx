// Composes CREATE POLICY for one table (name, command, roles, USING, WITH CHECK), shows the SQL,
// and runs it through the admin SQL route.
import { Button, Checkbox, Code, Group, NativeSelect, Stack, Textarea, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useApi } from '../../api/context';
import { ActionError } from '../../ui/ActionError';
import { quoteIdent, runAdminSql } from './tableApi';

const COMMANDS = ['ALL', 'SELECT', 'INSERT', 'UPDATE', 'DELETE'] as const;
const ROLES = ['anon', 'authenticated', 'project_admin'] as const;

export interface PolicyDraft {
  name: string;
  command: (typeof COMMANDS)[number];
  roles: string[];
  using: string;
  withCheck: string;
}

/** USING has no meaning for INSERT, WITH CHECK none for SELECT and DELETE. */
export function createPolicySql(table: string, p: PolicyDraft): string {
  const roles = p.roles.length ? p.roles.map(quoteIdent).join(', ') : 'public';
  const using = p.command !== 'INSERT' && p.using.trim() ? ` using (${p.using.trim()})` : '';
  const check =
    p.command !== 'SELECT' && p.command !== 'DELETE' && p.withCheck.trim() ? ` with check (${p.withCheck.trim()})` : '';
  return `create policy ${quoteIdent(p.name)} on public.${quoteIdent(table)} as permissive for ${p.command.toLowerCase()} to ${roles}${using}${check}`;
}

const EMPTY: PolicyDraft = { name: '', command: 'SELECT', roles: ['authenticated'], using: 'true', withCheck: '' };

export function CreatePolicyForm({ table }: { table: string }) {
  const api = useApi();
  const queries = useQueryClient();
  const [draft, setDraft] = useState<PolicyDraft>(EMPTY);
  const sql = createPolicySql(table, draft);
  const create = useMutation({
    mutationFn: () => runAdminSql(api, sql),
    onSuccess: async () => {
      setDraft(EMPTY);
      await queries.invalidateQueries({ queryKey: ['database-objects', 'policies'] });
    },
  });

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      <Stack gap="xs">
        <Title order={3} size="h5">
          New policy
        </Title>
        <Group grow align="flex-start" wrap="wrap">
          <TextInput
            label="Policy name"
            required
            value={draft.name}
            onChange={(e) => setDraft({ ...draft, name: e.currentTarget.value })}
          />
          <NativeSelect
            label="Command"
            value={draft.command}
            data={[...COMMANDS]}
            onChange={(e) => setDraft({ ...draft, command: e.currentTarget.value as PolicyDraft['command'] })}
          />
        </Group>
        <Checkbox.Group
          label="Roles (none: every role)"
          value={draft.roles}
          onChange={(roles) => setDraft({ ...draft, roles })}
        >
          <Group gap="md" mt={4}>
            {ROLES.map((role) => (
              <Checkbox key={role} value={role} label={role} />
            ))}
          </Group>
        </Checkbox.Group>
        <Textarea
          label="Using (rows a caller may see or change)"
          description="A SQL condition, e.g. owner_id = auth.uid()"
          value={draft.using}
          onChange={(e) => setDraft({ ...draft, using: e.currentTarget.value })}
        />
        <Textarea
          label="With check (rows a caller may write)"
          value={draft.withCheck}
          onChange={(e) => setDraft({ ...draft, withCheck: e.currentTarget.value })}
        />
        <Code block aria-label="SQL of the new policy" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
          {sql}
        </Code>
        <ActionError error={create.error} title="The policy was not created" />
        <Group justify="flex-end">
          <Button type="submit" loading={create.isPending} disabled={!draft.name.trim()}>
            Create policy
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
