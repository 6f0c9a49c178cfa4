// Text from outside (a function's console output, log lines) made safe for a terminal: control characters (ANSI escapes, \r, the other C0
// and C1 codes) shown as \u00XX, so a log line cannot move the cursor, rewrite earlier output or
// send commands to the terminal. \n and \t stay as they are.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

export const printable = (text: string): string => text.replace(CONTROL, escaped);

/** A JSON line with the control characters JSON.stringify leaves raw (DEL, C1) escaped too. */
export const printableJson = (value: unknown): string => JSON.stringify(value).replace(CONTROL, escaped);
