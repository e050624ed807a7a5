// The repository on disk: open, save, delete, export. Everything here goes through safeJoin.
export { loadRepository } from './loadRepository.ts';
