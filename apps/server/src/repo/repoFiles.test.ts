import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync, strFromU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import type { RepoFile } from '@ensemble-studio/core';
import { writeRepoFiles, zipRepoFiles } from './repoFiles.ts';
import { makeTestRepository } from '../testing/testRepository.ts';
import { tempDir } from '../testing/tempDir.ts';

const src = makeTestRepository();
const files: RepoFile[] = [
  { path: 'pipe/config.pbtxt', text: 'name: "pipe"\n' },
  { path: 'pipe/1/.gitkeep', text: '' },
  { path: 'head/1/model.onnx', copyFrom: 'head/1/model.onnx' },
  { path: 'empty/1' },
];

describe('writeRepoFiles', () => {
  it('writes text files, copies model files and creates directories', async () => {
    const out = tempDir('out-');
    await writeRepoFiles(out, files, src);
    expect(readFileSync(join(out, 'pipe', 'config.pbtxt'), 'utf8')).toBe('name: "pipe"\n');
    expect(
      readFileSync(join(out, 'head', '1', 'model.onnx')).equals(readFileSync(join(src, 'head', '1', 'model.onnx'))),
    ).toBe(true);
    expect(statSync(join(out, 'empty', '1')).isDirectory()).toBe(true);
  });

  it('refuses paths that leave the output or the source repository', async () => {
    const out = tempDir('out-');
    await expect(writeRepoFiles(out, [{ path: '../x', text: '' }], src)).rejects.toThrow(/\.\./);
    await expect(writeRepoFiles(out, [{ path: 'x', copyFrom: '/etc/passwd' }], src)).rejects.toThrow(/absolute/);
  });
});

describe('zipRepoFiles', () => {
  it('zips text and copied files, byte-identical for the same input', () => {
    const zip = zipRepoFiles(files, src);
    const entries = unzipSync(zip);
    expect(strFromU8(entries['pipe/config.pbtxt']!)).toBe('name: "pipe"\n');
    expect(Buffer.from(entries['head/1/model.onnx']!).equals(readFileSync(join(src, 'head', '1', 'model.onnx')))).toBe(
      true,
    );
    expect(Object.keys(entries)).toContain('empty/1/');
    expect(Buffer.from(zipRepoFiles(files, src)).equals(Buffer.from(zip))).toBe(true);
  });

  it('refuses a copyFrom outside the source repository', () => {
    expect(() => zipRepoFiles([{ path: 'x', copyFrom: '../../etc/passwd' }], src)).toThrow(/\.\./);
  });
});
