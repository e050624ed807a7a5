import { parentPort } from 'node:worker_threads';
import { parsePbtxtLenient } from '@ensemble-studio/core';

// The config worker (configParser.ts): parses large config.pbtxt files off the thread that serves clients.

parentPort!.on('message', ({ id, bytes }: { id: number; bytes: Uint8Array }) => {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  parentPort!.postMessage({ id, result: parsePbtxtLenient(text) });
});
