// S3's error vocabulary and its XML body, plus the small XML writer and reader the gateway uses.
import { createRequire } from 'node:module';
import type { XMLBuilder, XMLParser } from 'fast-xml-parser';

const statusOf = {
  AccessDenied: 403,
  SignatureDoesNotMatch: 403,
  InvalidAccessKeyId: 403,
  RequestTimeTooSkewed: 403,
  AuthorizationHeaderMalformed: 400,
  AuthorizationQueryParametersError: 400,
  XAmzContentSHA256Mismatch: 400,
  IncompleteBody: 400,
  BadDigest: 400,
  InvalidDigest: 400,
  NoSuchBucket: 404,
  NoSuchKey: 404,
  NoSuchUpload: 404,
  NoSuchCORSConfiguration: 404,
  BucketAlreadyOwnedByYou: 409,
  BucketNotEmpty: 409,
  InvalidBucketName: 400,
  EntityTooLarge: 400,
  EntityTooSmall: 400,
  InvalidRequest: 400,
  InvalidArgument: 400,
  InvalidPart: 400,
  InvalidPartOrder: 400,
  InvalidRange: 416,
  MalformedXML: 400,
  MethodNotAllowed: 405,
  NotImplemented: 501,
  InternalError: 500,
} as const;

export type S3ErrorCode = keyof typeof statusOf;

export class S3Error extends Error {
  readonly status: number;
  /** `extra` elements go into the XML error after Message (e.g. HeadersNotSigned). */
  constructor(
    readonly code: S3ErrorCode,
    message: string,
    readonly extra: Record<string, string> = {},
  ) {
    super(message);
    this.status = statusOf[code];
  }
}

/** Elements read as lists even when a document holds one of them. */
const REPEATED_ELEMENTS = new Set([
  'Object',
  'Part',
  'CORSRule',
  'Tag',
  'AllowedMethod',
  'AllowedOrigin',
  'AllowedHeader',
  'ExposeHeader',
]);

/**
 * The XML writer and reader, made by the gateway's first request that needs one rather than when
 * the server starts: a server whose S3 gateway is never called never holds the library.
 */
let codec: { builder: XMLBuilder; parser: XMLParser } | null = null;
function xml(): { builder: XMLBuilder; parser: XMLParser } {
  if (codec) return codec;
  const library = createRequire(import.meta.url)('fast-xml-parser') as typeof import('fast-xml-parser');
  codec = {
    builder: new library.XMLBuilder({ ignoreAttributes: false, suppressEmptyNode: false, processEntities: true }),
    parser: new library.XMLParser({
      ignoreAttributes: true,
      parseTagValue: false,
      trimValues: true,
      processEntities: true,
      isArray: (name) => REPEATED_ELEMENTS.has(name),
    }),
  };
  return codec;
}

/** `{Root: {...}}` as an XML document in S3's namespace. */
export function toXml(root: string, body: Record<string, unknown>): string {
  const content = xml().builder.build({ [root]: { '@_xmlns': 'http://s3.amazonaws.com/doc/2006-03-01/', ...body } });
  return `<?xml version="1.0" encoding="UTF-8"?>\n${content}`;
}

export function errorXml(err: S3Error, resource: string, requestId: string): string {
  const body = xml().builder.build({
    Error: { Code: err.code, Message: err.message, ...err.extra, Resource: resource, RequestId: requestId },
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n${body}`;
}

/** Parses a request document; anything unreadable or without `root` is MalformedXML. */
export function parseXml(text: string, root: string): Record<string, unknown> {
  const { parser } = xml();
  try {
    const doc = parser.parse(text, true) as Record<string, unknown>;
    const value = doc[root];
    if (value === undefined) throw new Error('missing root');
    return (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  } catch {
    throw new S3Error(
      'MalformedXML',
      'The XML you provided was not well-formed or did not validate against our published schema.',
    );
  }
}
