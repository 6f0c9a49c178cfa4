// One cell of the rows grid: NULL in italics; a foreign key as a link to the referenced row with a
// preview of it on hover; JSON expandable in a popover; a copy button while the cell is hovered or
// has focus within (only then in the page, so a cell's accessible name stays its value); the row
// editor shows every value for keyboard users to select.
import { ActionIcon, Anchor, Code, CopyButton, HoverCard, Popover, Text, UnstyledButton } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useApi } from '../../api/context';
import { hrefOf, navigate } from '../../shell/route';
import classes from './grid.module.css';
import { type ColumnInfo, type ForeignKeyInfo, recordsPath, type Row } from './tableApi';
import { cellText } from './valueCodec';

/** The grid of the referenced table, filtered to the referenced row. */
export const referencedRowPath = (fk: ForeignKeyInfo, value: unknown) =>
  `/tables/${encodeURIComponent(fk.referenceTable)}?${new URLSearchParams({ [fk.referenceColumn]: `eq.${cellText(value)}` })}`;

function ReferencedRow({ fk, value }: { fk: ForeignKeyInfo; value: unknown }) {
  const api = useApi();
  const row = useQuery({
    queryKey: ['referenced-row', fk.referenceTable, fk.referenceColumn, value],
    queryFn: () =>
      api.json<Row[]>(
        `${recordsPath(fk.referenceTable)}?${new URLSearchParams({ [fk.referenceColumn]: `eq.${cellText(value)}`, limit: '1' })}`,
      ),
  });
  if (row.isPending) return <Text size="sm">Loading {fk.referenceTable}…</Text>;
  if (row.isError || !row.data[0]) return <Text size="sm">No {fk.referenceTable} row has this key.</Text>;
  return (
    <Code block style={{ maxWidth: 420, maxHeight: 300, overflow: 'auto' }}>
      {JSON.stringify(row.data[0], null, 2)}
    </Code>
  );
}

function ForeignKeyValue({ fk, value }: { fk: ForeignKeyInfo; value: unknown }) {
  const to = referencedRowPath(fk, value);
  return (
    <HoverCard openDelay={300} withinPortal position="bottom-start">
      <HoverCard.Target>
        <Anchor
          size="sm"
          href={hrefOf(to)}
          onClick={(event) => {
            event.preventDefault();
            navigate(to);
          }}
        >
          {cellText(value)}
        </Anchor>
      </HoverCard.Target>
      <HoverCard.Dropdown>
        <Text size="xs" mb={4}>
          {fk.referenceTable}.{fk.referenceColumn}
        </Text>
        <ReferencedRow fk={fk} value={value} />
      </HoverCard.Dropdown>
    </HoverCard>
  );
}

function JsonValue({ value }: { value: object }) {
  return (
    <Popover withinPortal position="bottom-start" shadow="md">
      <Popover.Target>
        <UnstyledButton title="Expand JSON" aria-haspopup="dialog" fz="sm" style={{ fontFamily: 'monospace' }}>
          {cellText(value)}
        </UnstyledButton>
      </Popover.Target>
      <Popover.Dropdown>
        <Code block style={{ maxWidth: 480, maxHeight: 360, overflow: 'auto' }}>
          {JSON.stringify(value, null, 2)}
        </Code>
      </Popover.Dropdown>
    </Popover>
  );
}

export function GridCell({ column, value, active }: { column: ColumnInfo; value: unknown; active: boolean }) {
  if (value === null || value === undefined) {
    return (
      <Text span fs="italic" size="sm">
        NULL
      </Text>
    );
  }
  const text = cellText(value);
  return (
    <div className={classes.cell}>
      {column.foreignKey ? (
        <ForeignKeyValue fk={column.foreignKey} value={value} />
      ) : typeof value === 'object' ? (
        <JsonValue value={value} />
      ) : (
        text
      )}
      {active ? (
        <CopyButton value={text}>
          {({ copied, copy }) => (
            <ActionIcon
              className={classes.copy}
              size="sm"
              variant="default"
              aria-label={copied ? 'Copied' : 'Copy this value'}
              onClick={copy}
            >
              {copied ? <IconCheck size={14} aria-hidden /> : <IconCopy size={14} aria-hidden />}
            </ActionIcon>
          )}
        </CopyButton>
      ) : null}
    </div>
  );
}
