// The JavaScript/TypeScript code editor (CodeMirror), in the dashboard's theme, that marks a
// deploy error at its line (and column) as a lint diagnostic with a gutter marker.
import { type Diagnostic, lintGutter, setDiagnostics } from '@codemirror/lint';
import { javascript } from '@codemirror/lang-javascript';
import { useComputedColorScheme } from '@mantine/core';
import CodeMirror, { EditorView, type ReactCodeMirrorRef } from '@uiw/react-codemirror';
import { useEffect, useMemo, useRef } from 'react';
import { editorTheme } from './code-colours';

export interface CodeError {
  line: number;
  column: number | null;
  message: string;
}

/** The diagnostic of an error: from its column (or the line's start) to the line's end. */
function diagnosticOf(view: EditorView, error: CodeError): Diagnostic {
  const line = view.state.doc.line(Math.min(Math.max(error.line, 1), view.state.doc.lines));
  const from = Math.min(line.from + Math.max((error.column ?? 1) - 1, 0), line.to);
  return { from, to: Math.max(line.to, from), severity: 'error', message: error.message };
}

export default function CodeEditor({
  value,
  onChange,
  error,
  label,
}: {
  value: string;
  onChange(code: string): void;
  error: CodeError | null;
  label: string;
}) {
  const editor = useRef<ReactCodeMirrorRef>(null);
  const scheme = useComputedColorScheme('light');
  const theme = useMemo(() => editorTheme(scheme), [scheme]);
  const extensions = useMemo(
    () => [
      javascript({ typescript: true }),
      lintGutter(),
      // Wrapped lines: no sideways scrolling region (a phone's width, axe's scrollable-region rule).
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ 'aria-label': label }),
    ],
    [label],
  );

  useEffect(() => {
    const view = editor.current?.view;
    if (!view) return;
    view.dispatch(setDiagnostics(view.state, error ? [diagnosticOf(view, error)] : []));
  }, [error]);

  return (
    <CodeMirror
      ref={editor}
      value={value}
      onChange={onChange}
      extensions={extensions}
      theme={theme}
      minHeight="14rem"
      maxHeight="60vh"
      basicSetup={{ closeBrackets: false, autocompletion: false }}
    />
  );
}
