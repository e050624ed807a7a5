// The schema layer: everything read from untrusted JSON (graph documents, WebSocket messages, KServe and
// `/api` bodies) goes through valibot schemas whose errors name the field's path and what was expected.
export { migrate } from './migrate.ts';
export { isObj } from './fields.ts';
export { readInferBody, type InferBodyInput } from '../protocol/kserveSchema.ts';
export { elementsProblem } from '../protocol/tensorElements.ts';
export {
  apiCompileRequestSchema,
  apiGraphRequestSchema,
  apiImportRequestSchema,
  readApiBody,
} from '../protocol/apiRequests.ts';
