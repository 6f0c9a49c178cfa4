// A SQL code editor (CodeMirror with SQL highlighting) that follows the light/dark theme and has an
// accessible name; an optional line is marked (e.g. where the server says a statement failed), and
// Ctrl/Cmd+Enter runs the SQL when the caller gives `onRun`.
import { sql } from '@codemirror/lang-sql';
import { useComputedColorScheme } from '@mantine/core';
import CodeMirror, { Decoration, EditorView, type Extension, keymap, Prec } from '@uiw/react-codemirror';
import { useMemo, useRef } from 'react';

const errorLineTheme = EditorView.baseTheme({
  '.cm-error-line': { backgroundColor: 'rgba(250, 82, 82, 0.18)' },
});

/** The dark theme on a darker ground: its dimmest token colours keep a 4.5:1 contrast (axe). */
const darkGround = Prec.highest(
  EditorView.theme(
    { '&': { backgroundColor: '#141517' }, '.cm-gutters': { backgroundColor: '#141517', color: '#9aa3b2' } },
    { dark: true },
  ),
);

/** Marks line `line` (1-based) of the document, when it has one. */
function markLine(line: number): Extension {
  return EditorView.decorations.compute(['doc'], (state) => {
    if (line < 1 || line > state.doc.lines) return Decoration.none;
    const at = state.doc.line(line).from;
    return Decoration.set([Decoration.line({ class: 'cm-error-line' }).range(at)]);
  });
}

export function SqlEditor({
  label,
  value,
  onChange,
  errorLine,
  onRun,
  minHeight = '160px',
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  errorLine?: number;
  onRun?: () => void;
  minHeight?: string;
}) {
  const scheme = useComputedColorScheme('light');
  const run = useRef(onRun);
  run.current = onRun;
  const extensions = useMemo(
    () => [
      sql(),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ 'aria-label': label }),
      errorLineTheme,
      ...(scheme === 'dark' ? [darkGround] : []),
      ...(errorLine ? [markLine(errorLine)] : []),
      Prec.highest(
        keymap.of([
          {
            key: 'Mod-Enter',
            run: () => {
              if (!run.current) return false;
              run.current();
              return true;
            },
          },
        ]),
      ),
    ],
    [label, errorLine, scheme],
  );
  return (
    <CodeMirror
      value={value}
      onChange={onChange}
      extensions={extensions}
      theme={scheme}
      minHeight={minHeight}
      basicSetup={{ foldGutter: false, highlightActiveLine: false }}
      style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 4, fontSize: 14 }}
    />
  );
}
