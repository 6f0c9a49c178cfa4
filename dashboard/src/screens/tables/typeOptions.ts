// The column types offered by the table forms: the API's friendly names, then common SQL types
// (any other SQL type may be typed in).
export const TYPE_OPTIONS = [
  'string',
  'integer',
  'float',
  'boolean',
  'datetime',
  'date',
  'uuid',
  'json',
  'bigint',
  'numeric',
  'text[]',
  'integer[]',
  'timestamp',
];
