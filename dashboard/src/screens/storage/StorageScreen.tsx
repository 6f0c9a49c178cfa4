// Storage: the list of buckets at /storage, one bucket's folders at /storage/<bucket>/<prefix>.
import BucketBrowser from './BucketBrowser';
import BucketsList from './BucketsList';
import { placeOf } from './paths';

export default function StorageScreen({ rest }: { rest: string }) {
  const place = placeOf(rest);
  return place ? <BucketBrowser key={`${place.bucket}/${place.prefix}`} place={place} /> : <BucketsList />;
}
