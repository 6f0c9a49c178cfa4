// The JavaScript/TypeScript code editor (CodeMirror), in the dashboard's theme, that marks a
// deploy error at its line (and column) as a lint diagnostic with a gutter marker.
import { type Diagnostic, lintGutter, setDiagnostics } from '@codemirror/lint';
import { javascript } from '@codemirror/lang-javascript';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { tags } from '@lezer/highlight';
import { useComputedColorScheme } from '@mantine/core';
import CodeMirror, { EditorView, type ReactCodeMirrorRef } from '@uiw/react-codemirror';
import { useEffect, useMemo, useRef } from 'react';

export interface CodeError {
  line: number;
  column: number | null;
  message: string;
}

/** CodeMirror's default light colours, darkened where white text contrast fell under WCAG AA 4.5:1. */
const lightHighlight = HighlightStyle.define([
  { tag: tags.meta, color: '#404740' },
  { tag: tags.keyword, color: '#708' },
  { tag: [tags.atom, tags.bool, tags.url, tags.contentSeparator, tags.labelName], color: '#219' },
  { tag: [tags.literal, tags.inserted], color: '#164' },
  { tag: [tags.string, tags.deleted], color: '#a11' },
  { tag: [tags.regexp, tags.escape, tags.special(tags.string)], color: '#b3300a' },
  { tag: tags.definition(tags.variableName), color: '#00f' },
  { tag: tags.local(tags.variableName), color: '#30a' },
  { tag: [tags.typeName, tags.namespace], color: '#06603f' },
  { tag: tags.className, color: '#167' },
  { tag: [tags.special(tags.variableName), tags.macroName], color: '#256' },
  { tag: tags.definition(tags.propertyName), color: '#00c' },
  { tag: tags.comment, color: '#6a4a00' },
  { tag: tags.invalid, color: '#d00' },
]);

/** The diagnostic of an error: from its column (or the line's start) to the line's end. */
function diagnosticOf(view: EditorView, error: CodeError): Diagnostic {
  const line = view.state.doc.line(Math.min(Math.max(error.line, 1), view.state.doc.lines));
  const from = Math.min(line.from + Math.max((error.column ?? 1) - 1, 0), line.to);
  return { from, to: Math.max(line.to, from), severity: 'error', message: error.message };
}

export function CodeEditor({
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
  const extensions = useMemo(
    () => [
      javascript({ typescript: true }),
      // Dark mode keeps the dark theme's own highlighting.
      ...(scheme === 'light' ? [syntaxHighlighting(lightHighlight)] : []),
      lintGutter(),
      // Wrapped lines: no sideways scrolling region (a phone's width, axe's scrollable-region rule).
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ 'aria-label': label }),
    ],
    [label, scheme],
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
      theme={scheme}
      minHeight="14rem"
      maxHeight="60vh"
      basicSetup={{ closeBrackets: false, autocompletion: false }}
    />
  );
}
