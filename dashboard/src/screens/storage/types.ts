// The shapes of the storage API answers this screen reads (api-contract §4).

export interface Bucket {
  name: string;
  public: boolean;
  createdAt: string;
}

export interface StoredObject {
  bucket: string;
  key: string;
  size: number;
  mimeType: string;
  uploadedAt: string;
  url: string;
}

export interface ObjectPage {
  data: StoredObject[];
  pagination: { offset: number; limit: number; total: number };
}

export interface DownloadStrategy {
  method: 'direct' | 'presigned';
  url: string;
  expiresAt?: string;
}
