// Graph documents from untrusted JSON: numbered migrations + structural checks.
export { migrate, MIGRATIONS, type Migration, type MigrateResult } from './migrate.ts';
export { isObj } from './fields.ts';
export { readInferBody, type InferBody, type InferBodyInput } from '../protocol/kserveSchema.ts';
export { elementProblem, elementsProblem, type JsonElement } from '../protocol/tensorElements.ts';
export {
  apiCompileRequestSchema,
  apiGraphRequestSchema,
  apiImportRequestSchema,
  readApiBody,
} from '../protocol/apiRequests.ts';
