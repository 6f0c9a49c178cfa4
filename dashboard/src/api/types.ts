// The shapes of the API answers the dashboard reads (see /api/reference for the full documents).

export interface Health {
  status: string;
  /** The reference API version Plinth is compatible with. */
  version: string;
  /** Plinth's own version. */
  plinthVersion: string;
  service: string;
  timestamp: string;
}

export interface Readiness {
  status: 'ready' | 'unavailable';
  database: string;
  pendingMigrations: string[];
  functionsRuntime: { status: string; restarts: number };
}

export interface ProjectMetadata {
  database: {
    tables: { name: string; recordCount: number }[];
    totalTables: number;
    totalRecords: number;
    databaseSize: string;
  };
  storage: { buckets: { name: string; public: boolean; objectCount: number }[] };
  functions: { functions: { slug: string; name: string; status: string }[] };
  version: string;
}

export interface UserPage {
  pagination: { offset: number; limit: number; total: number };
}

export interface ColumnInfo {
  columnName: string;
  type: string;
  isNullable: boolean;
  isPrimaryKey: boolean;
}
