// A burst of connections that arrives while the server is busy waits in the kernel's accept queue instead of
// losing its SYNs (each lost one is retried only a second later).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGrpcServer, type GrpcServer } from './grpc/server.ts';
import { startServer, type RunningServer } from './main.ts';
import { tempDir } from './testing/tempDir.ts';

// Opens `n` connections at once, and 700 ms later writes how many of them the kernel completed to `file` (written
// beside it and renamed: the waiting test must never read the file created but not yet written).
const CONNECTOR = `
const net = require('node:net');
const fs = require('node:fs');
const [port, n, file] = process.argv.slice(1);
let connected = 0;
const sockets = [];
for (let i = 0; i < Number(n); i++) {
  const s = net.connect(Number(port), '127.0.0.1', () => connected++);
  s.on('error', () => {});
  sockets.push(s);
}
setTimeout(() => {
  fs.writeFileSync(file + '.part', String(connected));
  fs.renameSync(file + '.part', file);
  for (const s of sockets) s.destroy();
}, 700);
`;

let s: RunningServer;
let g: GrpcServer;
beforeAll(async () => {
  s = await startServer({ repo: tempDir('studio-backlog-'), port: 0, host: '127.0.0.1', webDist: '/nonexistent' });
  g = await startGrpcServer(s.studio, '127.0.0.1', 0);
}, 60_000);
afterAll(async () => {
  await g?.close();
  await s?.close();
});

it.each(['HTTP', 'gRPC'])(
  '%s port holds a burst of 1,200 connections made while its event loop is blocked',
  (which) => {
    const port = which === 'HTTP' ? s.port : g.port;
    const file = join(tempDir('studio-burst-'), 'connected');
    const child = spawn(process.execPath, ['-e', CONNECTOR, String(port), '1200', file], { stdio: 'ignore' });
    // The server's loop (this thread) does not run until the connector has counted: nothing is accepted meanwhile.
    const cell = new Int32Array(new SharedArrayBuffer(4));
    const start = Date.now();
    while (!existsSync(file) && Date.now() - start < 30_000) Atomics.wait(cell, 0, 0, 10);
    child.kill();
    // Node's default backlog (511) completes 512 of them; the rest wait for a SYN retry.
    expect(Number(readFileSync(file, 'utf8'))).toBe(1200);
  },
);
