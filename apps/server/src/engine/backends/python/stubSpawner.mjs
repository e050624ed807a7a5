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
// Each stub leads a process group of its own, and the group is killed when the stub exits: processes a model starts
// (a fork, a subprocess) end with its instance instead of outliving the server.
import { spawn } from 'node:child_process';

/** Stubs started and not yet exited, by pid. */
const running = new Set();

/** Ends what is left of stub `pid`'s process group (nothing, usually: then the kill finds no group). */
function endGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* no process left in the group */
  }
}

/** The server is gone: its stubs go with it, and so does this process. */
function serverGone() {
  for (const pid of running) endGroup(pid);
  process.exit(0);
}

// Ctrl-C reaches the whole process group (the server shuts its stubs down); this process ends when the server does,
// and takes with it the stubs of a server that died without closing them. Node postpones 'disconnect' until every
// handle sent has been acknowledged, so a server that dies with pipes still unacknowledged (killed while its models
// load) never causes one: the end of fd 0, a pipe only the server holds and never writes, is what says it is gone.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
process.on('disconnect', serverGone);
process.stdin.on('end', serverGone);
process.stdin.on('error', serverGone);
process.stdin.resume();

// A send to a server that has just died fails (EPIPE); the end of fd 0 follows, so the failure needs no handling.
const send = (message, handle) => {
  if (process.connected) process.send(message, handle, () => {});
};

/**
 * The server reads the stub's pipes, not this process: Node starts reading a child's pipe as it makes it, so what
 * the stub wrote before its pipe was handed over (its first prints, a traceback from its imports) was read here and
 * lost, and a pipe read to its end here closed before it could be handed over. The read is stopped before any
 * arrives (a spawn's pipes are read from the event loop's next poll on).
 */
function leaveUnread(socket) {
  const handle = socket?._handle;
  if (handle?.reading) {
    handle.reading = false;
    handle.readStop();
  }
}

process.on('message', (m) => {
  let child;
  try {
    child = spawn(m.file, m.args, {
      stdio: ['ignore', m.stdout ? 'pipe' : 'ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
      // The stub has the kernel kill it when this process ends (prctl PR_SET_PDEATHSIG), checking it is still
      // this process's child once asked.
      env: { ...m.env, STUDIO_STUB_PARENT: String(process.pid) },
      cwd: m.cwd,
      detached: true,
    });
  } catch (err) {
    send({ id: m.id, error: { message: err.message, code: err.code } });
    return;
  }
  child.on('error', (err) => {
    if (child.pid === undefined) send({ id: m.id, error: { message: err.message, code: err.code } });
  });
  if (child.pid === undefined) return; // 'error' follows
  const fds = m.stdout ? [1, 2, 3, 4, 5] : [2, 3, 4, 5];
  for (const fd of fds) leaveUnread(child.stdio[fd]);
  for (const fd of fds) send({ id: m.id, fd }, child.stdio[fd]);
  const pid = child.pid;
  running.add(pid);
  send({ id: m.id, pid });
  child.on('exit', (code, signal) => {
    running.delete(pid);
    endGroup(pid);
    send({ id: m.id, exit: code, signal });
  });
});
