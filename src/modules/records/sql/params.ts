// Collects the bound parameters of one statement; every request value goes through here.
export class Params {
  readonly values: unknown[] = [];

  /** `$n` for this value. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** An identifier already checked against the schema cache, quoted for SQL. */
export const ident = (name: string): string => `"${name.replaceAll('"', '""')}"`;
