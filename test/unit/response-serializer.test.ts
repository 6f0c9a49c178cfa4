// Replies checked against their response schema: a schema of plain types is parsed (zod's compiled
// direction), any schema with a codec, transform, default or catch is encoded as before; either
// way unknown fields never reach the client and a reply that breaks its schema is refused.
import { ResponseSerializationError } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sameBothWays, serializerCompiler } from '../../src/http/response-serializer.js';

const serializerFor = (schema: z.ZodType) =>
  serializerCompiler({ schema, method: 'GET', url: '/things', httpStatus: '200' }) as (data: unknown) => string;

type Node = { id: string; children: Node[] };
const tree: z.ZodType<Node> = z.lazy(() => z.object({ id: z.string(), children: z.array(tree) }));

describe('which schemas are parsed', () => {
  it('plain types, nested, optional, unions, records and recursive schemas', () => {
    const plain = z.object({
      id: z.uuid(),
      email: z.string().nullable(),
      tags: z.array(z.enum(['a', 'b'])).optional(),
      profile: z.record(z.string(), z.unknown()),
      kind: z.union([z.literal('x'), z.number().int()]),
    });
    expect(sameBothWays(plain)).toBe(true);
    expect(sameBothWays(tree)).toBe(true);
  });

  it('not when a codec, transform, default or catch is anywhere inside', () => {
    const numberAsText = z.codec(z.string(), z.number(), { decode: Number, encode: String });
    for (const inner of [
      numberAsText,
      z.string().transform((s) => s.length),
      z.string().default('x'),
      z.number().catch(0),
    ]) {
      expect(sameBothWays(z.object({ items: z.array(z.object({ value: inner })) }))).toBe(false);
    }
  });
});

describe('what a reply carries', () => {
  const user = z.object({ id: z.string(), email: z.string() });

  it('only the fields of the schema (a parsed schema)', () => {
    const out = serializerFor(user)({ id: 'u1', email: 'a@b.dev', passwordHash: 'secret' });
    expect(JSON.parse(out)).toEqual({ id: 'u1', email: 'a@b.dev' });
  });

  it('a reply that breaks its schema is refused, not sent', () => {
    expect(() => serializerFor(user)({ id: 'u1' })).toThrow(ResponseSerializationError);
  });

  it('codecs still run their encoding direction', () => {
    const schema = z.object({
      size: z.codec(z.string(), z.number(), { decode: Number, encode: String }),
      x: z.string(),
    });
    expect(JSON.parse(serializerFor(schema)({ size: 5, x: 'y', extra: true }))).toEqual({ size: '5', x: 'y' });
  });
});
