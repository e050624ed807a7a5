// File decoding for run inputs (CLI, HTTP uploads, tests): images, audio, JSON and .npy tensors.
export { decodeImage, encodePng } from './image.ts';
export { decodeWav } from './wav.ts';
export { resample } from './resample.ts';
export type { Wav } from './wav.ts';
export { decodeNpy } from './npy.ts';
export { decodeJsonTensor } from './json.ts';
export { readInputFile } from './readInputFile.ts';
export type { InputSpec } from './readInputFile.ts';
