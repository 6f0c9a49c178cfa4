// S3's error vocabulary and its XML body, plus the small XML writer and reader the gateway uses.
import { XMLBuilder, XMLParser } from 'fast-xml-parser';

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

const builder = new XMLBuilder({ ignoreAttributes: false, suppressEmptyNode: false, processEntities: true });

/** `{Root: {...}}` as an XML document in S3's namespace. */
export function toXml(root: string, body: Record<string, unknown>): string {
  const content = builder.build({ [root]: { '@_xmlns': 'http://s3.amazonaws.com/doc/2006-03-01/', ...body } });
  return `<?xml version="1.0" encoding="UTF-8"?>\n${content}`;
}

export function errorXml(err: S3Error, resource: string, requestId: string): string {
  const body = builder.build({
    Error: { Code: err.code, Message: err.message, ...err.extra, Resource: resource, RequestId: requestId },
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n${body}`;
}

const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  processEntities: true,
  isArray: (name) =>
    ['Object', 'Part', 'CORSRule', 'Tag', 'AllowedMethod', 'AllowedOrigin', 'AllowedHeader', 'ExposeHeader'].includes(
      name,
    ),
});

/** Parses a request document; anything unreadable or without `root` is MalformedXML. */
export function parseXml(text: string, root: string): Record<string, unknown> {
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
