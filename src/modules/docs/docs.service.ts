// Answers a docs topic: maps the MCP's type or feature/language to a file and reads it; anything
// unknown is 404 DOCS_NOT_FOUND, which the MCP server shows as "documentation not available".
import { AppError } from '../../core/errors.js';
import { docFilename, readDoc } from './docs.repo.js';
import { DOC_TYPES, FEATURES, LANGUAGES } from './docs.schemas.js';

const notFound = () =>
  new AppError('DOCS_NOT_FOUND', 'Documentation not found', {
    nextActions: `List the topics with GET /api/docs. Types: ${Object.keys(DOC_TYPES).join(', ')}; SDK docs: /api/docs/{${FEATURES.join('|')}}/{${LANGUAGES.join('|')}}.`,
  });

const has = <T extends string>(list: readonly T[], value: string): value is T => list.includes(value as T);

export function createDocsService() {
  return {
    index() {
      return [
        ...Object.entries(DOC_TYPES).map(([type, file]) => ({
          type,
          filename: docFilename(file),
          endpoint: `/api/docs/${type}`,
        })),
        ...FEATURES.flatMap((feature) =>
          LANGUAGES.map((language) => ({
            type: language === 'rest-api' ? `${feature}-rest-api` : `${feature}-sdk-${language}`,
            filename: docFilename(feature),
            endpoint: `/api/docs/${feature}/${language}`,
          })),
        ),
      ];
    },
    async byType(docType: string) {
      if (!Object.hasOwn(DOC_TYPES, docType)) throw notFound();
      return { type: docType, content: await readDoc(DOC_TYPES[docType as keyof typeof DOC_TYPES]) };
    },
    async bySdk(feature: string, language: string) {
      if (!has(FEATURES, feature) || !has(LANGUAGES, language)) throw notFound();
      const type = language === 'rest-api' ? `${feature}-rest-api` : `${feature}-sdk-${language}`;
      return { type, content: await readDoc(feature) };
    },
  };
}

export type DocsService = ReturnType<typeof createDocsService>;
