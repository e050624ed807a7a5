import { readFile, stat } from 'node:fs/promises';
import { Router } from 'express';
import { ownValue, type ApiModelSource } from '@ensemble-studio/core';
import { isSafeName, safeJoin } from '../../repo/safeJoin.ts';
import { ApiError } from '../errors.ts';
import type { Studio } from '../Studio.ts';

/** The largest `model.py` the editor is sent; a bigger file is refused with 413 (it is read-only, not an editor). */
export const MAX_MODEL_SOURCE_BYTES = 512 * 1024;

/**
 * `GET /:name/source` (mounted under `/api/models`): the source of a Python model, read-only, as
 * `{model, path, bytes, text}` where `path` is repository-relative (`add_one/1/model.py`, latest version).
 * The path is joined with `safeJoin` (no `..`, no symlink out of the repository); the size is capped.
 * @example app.use('/api/models', auth, modelSourceRouter(studio))
 */
export function modelSourceRouter(studio: Studio): Router {
  const router = Router();
  router.get('/:name/source', async (req, res) => {
    const name = req.params.name;
    if (!isSafeName(name))
      throw new ApiError(400, 'bad-name', `"${String(name).slice(0, 128)}" is not a valid model name`);
    const model = ownValue(studio.catalogue.models, name);
    if (!model) throw new ApiError(404, 'not-found', `no model named "${name}" in the repository`);
    if (model.backend !== 'python') {
      throw new ApiError(
        400,
        'not-python',
        `model "${name}" is not a Python model (backend ${model.backend || model.platform || 'unknown'}): only a model.py has a source to show`,
      );
    }
    if (model.versions.length === 0)
      throw new ApiError(404, 'not-found', `model "${name}" has no version directory holding its model.py`);
    const rel = `${name}/${Math.max(...model.versions)}/${model.config.default_model_filename ?? 'model.py'}`;
    const file = safeJoin(studio.repository.dir, rel);
    const info = await stat(file).catch(() => null);
    if (!info?.isFile()) throw new ApiError(404, 'not-found', `${rel} does not exist in the repository`);
    if (info.size > MAX_MODEL_SOURCE_BYTES) {
      throw new ApiError(
        413,
        'too-large',
        `${rel} is ${info.size} bytes; the studio shows sources up to ${MAX_MODEL_SOURCE_BYTES} bytes`,
        { limit: 'maxModelSourceBytes', value: MAX_MODEL_SOURCE_BYTES },
      );
    }
    res.json({ model: name, path: rel, bytes: info.size, text: await readFile(file, 'utf8') } satisfies ApiModelSource);
  });
  return router;
}
