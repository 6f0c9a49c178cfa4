// The code editor's colours in light and dark, every token at least WCAG AA (4.5:1) against its
// background (CodeMirror's default light and One Dark colours fall short for some tokens).
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { tags } from '@lezer/highlight';
import { EditorView, type Extension } from '@uiw/react-codemirror';

/** CodeMirror's default light colours, darkened where they fell under 4.5:1 on white. */
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

/** Light tints that keep 7:1 or more on the dark background below. */
const darkHighlight = HighlightStyle.define([
  { tag: tags.meta, color: '#c8c8c8' },
  { tag: tags.keyword, color: '#e0b0ff' },
  { tag: [tags.atom, tags.bool, tags.url, tags.contentSeparator, tags.labelName], color: '#ffc58f' },
  { tag: [tags.literal, tags.inserted, tags.number], color: '#ffc58f' },
  { tag: [tags.string, tags.deleted], color: '#b5e08d' },
  { tag: [tags.regexp, tags.escape, tags.special(tags.string)], color: '#7ee0e0' },
  { tag: [tags.definition(tags.variableName), tags.definition(tags.propertyName)], color: '#9cd0ff' },
  { tag: [tags.typeName, tags.namespace, tags.className], color: '#ffd580' },
  { tag: tags.comment, color: '#b4bccb' },
  { tag: tags.invalid, color: '#ff9a9a' },
]);

const darkTheme = EditorView.theme(
  {
    '&': { color: '#e6e6e6', backgroundColor: '#1f2125' },
    '.cm-content': { caretColor: '#ffffff' },
    '.cm-cursor, .cm-dropCursor': { borderLeftColor: '#ffffff' },
    '.cm-gutters': { backgroundColor: '#1f2125', color: '#c0c4cc', border: 'none' },
    '.cm-activeLine, .cm-activeLineGutter': { backgroundColor: '#2a2d33' },
    '&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection': { backgroundColor: '#3a4a66' },
  },
  { dark: true },
);

/** The `theme` of the editor for a colour scheme. */
export function editorTheme(scheme: 'light' | 'dark'): Extension {
  return scheme === 'light' ? syntaxHighlighting(lightHighlight) : [darkTheme, syntaxHighlighting(darkHighlight)];
}
