// Collects the bound parameters of one statement; every request value goes through here, as a
// scalar or a flat list of text: the driver is never handed an object or a nested array to walk.
// JSON values arrive as text already (the plan turned them into text and checked their nesting).

/** What a statement binds: postgres.js serialises these without recursing. */
export type ParamValue = string | number | null | readonly string[];

export class Params {
  readonly values: ParamValue[] = [];

  /** `$n` for this value. */
  add(value: ParamValue): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * An identifier quoted for SQL: a name the plan resolved against the schema cache, a name it
 * checked (aliases, which hold no NUL), or an alias the renderer chose.
 */
export const ident = (name: string): string => `"${name.replaceAll('"', '""')}"`;
