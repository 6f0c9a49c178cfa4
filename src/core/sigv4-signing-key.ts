// The AWS Signature Version 4 signing key of one day, region and the s3 service: what both the S3
// gateway (checking requests) and the S3 blob store (signing browser POST policies) sign with.
import { createHmac } from 'node:crypto';

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

export function signingKeyOf(secret: string, date: string, region: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), 's3'), 'aws4_request');
}
