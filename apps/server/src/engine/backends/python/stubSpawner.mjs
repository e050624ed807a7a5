// The process that starts python stubs for the server (stubProcess.ts). Starting a process forks the one that
// asks, and a fork copies the page tables of everything resident: ~35 ms for the server at 850 MB, during which
// its event loop answers nobody; this process stays small, so its forks take a millisecond or two.
// Protocol, over Node's IPC channel (JSON):
//   server → here: { id, file, args, env, cwd, stdout: boolean }
//   here → server: { id, fd } with the pipe's handle attached, for fd 1 (when stdout), 2, 3, 4 and 5; then { id, pid };
//                  or { id, error: { message, code } } when the process could not start;
//                  later { id, exit: code, signal }.
// A handle sent is closed here (keepOpen is false), so only the server holds the pipes: the stub sees EOF on fds 3
// and 5 when the server closes them or dies.
import { spawn } from 'node:child_process';

// Ctrl-C reaches the whole process group; this process ends when the server does (the channel disconnects).
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
process.on('disconnect', () => process.exit(0));

const send = (message, handle) => {
  if (process.connected) process.send(message, handle);
};

process.on('message', (m) => {
  let child;
  try {
    child = spawn(m.file, m.args, {
      stdio: ['ignore', m.stdout ? 'pipe' : 'ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
      env: m.env,
      cwd: m.cwd,
    });
  } catch (err) {
    send({ id: m.id, error: { message: err.message, code: err.code } });
    return;
  }
  child.on('error', (err) => {
    if (child.pid === undefined) send({ id: m.id, error: { message: err.message, code: err.code } });
  });
  if (child.pid === undefined) return; // 'error' follows
  for (const fd of m.stdout ? [1, 2, 3, 4, 5] : [2, 3, 4, 5]) send({ id: m.id, fd }, child.stdio[fd]);
  send({ id: m.id, pid: child.pid });
  child.on('exit', (code, signal) => send({ id: m.id, exit: code, signal }));
});
