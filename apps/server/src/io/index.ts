// File decoding for run inputs (CLI, HTTP uploads, tests): images, audio, JSON and .npy tensors.
export { decodeImage } from './image.ts';
export { decodeWav } from './wav.ts';
export { resample } from './resample.ts';
export { readInputFile } from './readInputFile.ts';
