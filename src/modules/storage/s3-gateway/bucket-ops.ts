// Bucket-level S3 operations: list/create/delete/head buckets, location, versioning and CORS.
import { S3Error } from './s3-error.js';
import { s3Date, sendXml, type Operation } from './context.js';
import { parseXml } from './s3-error.js';

export const listBuckets: Operation = async ({ storage, reply }) => {
  const buckets = await storage.listBuckets();
  return sendXml(reply, 'ListAllMyBucketsResult', {
    Owner: { ID: 'plinth', DisplayName: 'plinth' },
    Buckets: { Bucket: buckets.map((b) => ({ Name: b.name, CreationDate: s3Date(new Date(b.createdAt)) })) },
  });
};

export const createBucket: Operation = async ({ storage, bucket, reply }) => {
  // Buckets made through S3 are private, as S3's are.
  await storage.createBucket(bucket, false);
  return reply.header('location', `/${bucket}`).code(200).send();
};

export const deleteBucket: Operation = async ({ storage, bucket, reply }) => {
  await storage.bucketOf(bucket);
  if (await storage.hasObjects(bucket))
    throw new S3Error('BucketNotEmpty', 'The bucket you tried to delete is not empty.');
  await storage.deleteBucket(bucket);
  return reply.code(204).send();
};

export const headBucket: Operation = async ({ storage, bucket, reply, deps }) => {
  await storage.bucketOf(bucket);
  return reply.header('x-amz-bucket-region', deps.config.storage.region).code(200).send();
};

export const getBucketLocation: Operation = async ({ storage, bucket, reply, deps }) => {
  await storage.bucketOf(bucket);
  return sendXml(reply, 'LocationConstraint', { '#text': deps.config.storage.region });
};

/** Versioning is never enabled: reads answer an empty configuration, writes may only suspend it. */
export const getBucketVersioning: Operation = async ({ storage, bucket, reply }) => {
  await storage.bucketOf(bucket);
  return sendXml(reply, 'VersioningConfiguration', {});
};

export const putBucketVersioning: Operation = async ({ storage, bucket, reply, text }) => {
  await storage.bucketOf(bucket);
  const doc = parseXml(await text(), 'VersioningConfiguration');
  if (doc.Status === 'Enabled')
    throw new S3Error('NotImplemented', 'Object versioning is not supported by this server.');
  return reply.code(200).send();
};

export const getBucketCors: Operation = async ({ storage, bucket, reply }) => {
  await storage.bucketOf(bucket);
  const cors = await storage.cors(bucket);
  if (!cors) throw new S3Error('NoSuchCORSConfiguration', 'The CORS configuration does not exist.');
  return sendXml(reply, 'CORSConfiguration', JSON.parse(cors) as Record<string, unknown>);
};

export const putBucketCors: Operation = async ({ storage, bucket, reply, text }) => {
  await storage.bucketOf(bucket);
  const doc = parseXml(await text(), 'CORSConfiguration');
  const rules = Array.isArray(doc.CORSRule) ? doc.CORSRule : [];
  if (rules.length === 0 || rules.length > 100)
    throw new S3Error('MalformedXML', 'A CORS configuration needs 1 to 100 CORSRule elements.');
  await storage.setCors(bucket, JSON.stringify({ CORSRule: rules }));
  return reply.code(200).send();
};

export const deleteBucketCors: Operation = async ({ storage, bucket, reply }) => {
  await storage.bucketOf(bucket);
  await storage.setCors(bucket, null);
  return reply.code(204).send();
};
