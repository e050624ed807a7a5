#!/usr/bin/env node
// One command does all set-up on a fresh machine with only Node ≥ 20.19 and npm:
//   node scripts/setup.mjs start   → pnpm + dependencies + example models + the web build, then serve the studio
//   node scripts/setup.mjs test    → the same plus the test tools (Chromium, python3-numpy, python3-grpcio and
//                                    python3-grpc-tools, ImageMagick, espeak-ng, sox), then all tests
//   node scripts/setup.mjs bench   → dependencies, example models and the bench's tools (python3-numpy, ImageMagick, DejaVu
//                                    fonts), then the bench (`pnpm bench`); set-up's own output goes to stderr, so
//                                    `pnpm bench --json` prints only the JSON on stdout
// Anything already present is left alone, so repeated runs cost a second.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PNPM_VERSION = '12.21.0';
const [command = 'install', ...rest] = process.argv.slice(2);
// The bench's stdout is its JSON report: set-up's messages, and its children's, go to stderr there.
const setupOut = command === 'bench' ? ['inherit', 2, 'inherit'] : 'inherit';
const say = command === 'bench' ? console.error : console.log;

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: setupOut, cwd: root, ...opts });
  return r.status ?? 1;
}
function quiet(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: 'pipe', cwd: root });
  return r.status === 0 ? String(r.stdout).trim() : undefined;
}
function fail(msg) {
  console.error(`setup: ${msg}`);
  process.exit(1);
}

function ensurePnpm() {
  const v = quiet('pnpm', ['--version']);
  if (v && Number(v.split('.')[0]) >= 12) return 'pnpm';
  say(`setup: installing pnpm@${PNPM_VERSION} (npm i -g)`);
  if (run('npm', ['i', '-g', `pnpm@${PNPM_VERSION}`]) === 0 && quiet('pnpm', ['--version'])) return 'pnpm';
  fail(`could not install pnpm@${PNPM_VERSION}; install it with "npm i -g pnpm@${PNPM_VERSION}" and retry`);
}

function ensureDependencies(pnpm) {
  const marker = join(root, 'node_modules', '.modules.yaml');
  const lock = join(root, 'pnpm-lock.yaml');
  const fresh = existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs;
  if (fresh) return;
  say('setup: installing dependencies (pnpm install --frozen-lockfile)');
  if (run(pnpm, ['install', '--frozen-lockfile']) !== 0) fail('pnpm install failed (see above)');
}

/** Builds the web app when its bundle is missing or older than any of its sources (core included). */
function ensureWebBuild(pnpm) {
  const dist = join(root, 'apps', 'web', 'dist', 'index.html');
  const built = existsSync(dist) ? statSync(dist).mtimeMs : 0;
  const newest = (dir) => {
    let t = 0;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
    }
    return t;
  };
  const sources = [
    join(root, 'apps', 'web', 'src'),
    join(root, 'apps', 'web', 'index.html'),
    join(root, 'packages', 'core', 'src'),
  ];
  if (built > 0 && sources.every((s) => (statSync(s).isDirectory() ? newest(s) : statSync(s).mtimeMs) <= built)) return;
  say('setup: building the web app (vite build)');
  if (run(pnpm, ['--filter', '@ensemble-studio/web', 'build']) !== 0) fail('the web app did not build (see above)');
}

/** The Debian packages the tests need that this machine lacks (the bench needs only the first three). */
function missingTools({ bench = false } = {}) {
  const need = [];
  // The python backend's tests run Debian's /usr/bin/python3 (as the gRPC wire tests below do): a python3 on PATH
  // with numpy (a pyenv shim) does not stand in for it there. The bench runs whichever has numpy (pythonWithNumpy).
  const numpy = (python) => quiet(python, ['-c', 'import numpy']) !== undefined;
  const debianNumpy = numpy('/usr/bin/python3') || existsSync('/usr/lib/python3/dist-packages/numpy');
  if (bench ? !numpy('python3') && !debianNumpy : !numpy('/usr/bin/python3')) need.push('python3-numpy');
  // The bench's and the fixtures' text images are drawn by ImageMagick in DejaVu Sans.
  if (!quiet('convert', ['-version'])?.includes('ImageMagick')) need.push('imagemagick');
  if (!existsSync('/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf')) need.push('fonts-dejavu-core');
  if (bench) return need;
  if (!existsSync('/usr/bin/chromium')) need.push('chromium');
  if (!quiet('espeak-ng', ['--version'])) need.push('espeak-ng');
  if (!quiet('sox', ['--version'])) need.push('sox');
  // The gRPC wire test drives the server from Debian's python3 with grpcio and stubs grpc_tools generates.
  if (quiet('/usr/bin/python3', ['-c', 'import grpc']) === undefined) need.push('python3-grpcio');
  if (quiet('/usr/bin/python3', ['-c', 'import grpc_tools.protoc']) === undefined) need.push('python3-grpc-tools');
  return need;
}

function ensureDebianPackages(need) {
  if (need.length === 0) return;
  const isRoot = process.getuid?.() === 0;
  const sudo = isRoot ? [] : ['sudo'];
  say(`setup: installing from Debian: ${need.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (
    run(sudo[0] ?? 'apt-get', [...sudo.slice(1), ...(isRoot ? [] : ['apt-get']), 'update', '-qq'], { env }) !== 0 ||
    run(sudo[0] ?? 'apt-get', [...sudo.slice(1), ...(isRoot ? [] : ['apt-get']), 'install', '-y', '-qq', ...need], {
      env,
    }) !== 0
  ) {
    fail(`could not install ${need.join(' ')}; install them with apt-get and retry`);
  }
}

/**
 * The tests run `python3` with numpy. When the `python3` on PATH (e.g. a pyenv shim) lacks numpy but
 * Debian's /usr/bin/python3 has it (python3-numpy), put a `python3` that is Debian's first on PATH.
 */
function pythonWithNumpy() {
  if (quiet('python3', ['-c', 'import numpy']) !== undefined) return process.env;
  if (quiet('/usr/bin/python3', ['-c', 'import numpy']) === undefined)
    fail('python3 with numpy is needed for the tests: apt-get install python3-numpy');
  // One fixed directory, reused by every run (a fresh temp dir per run was never removed).
  const dir = join(tmpdir(), 'ensemble-studio-python');
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'python3'))) symlinkSync('/usr/bin/python3', join(dir, 'python3'));
  return { ...process.env, PATH: `${dir}:${process.env.PATH ?? ''}` };
}

const pnpm = ensurePnpm();
ensureDependencies(pnpm);
if (run(pnpm, ['--silent', 'studio', 'prepare-examples']) !== 0) fail('could not prepare the example models');

switch (command) {
  case 'install':
    break;
  case 'start':
    ensureWebBuild(pnpm);
    process.exit(run(pnpm, ['--silent', 'studio', 'serve', ...rest]));
    break;
  case 'test':
    ensureDebianPackages(missingTools());
    process.exit(run(pnpm, ['run', 'test:all', ...rest], { env: pythonWithNumpy() }));
    break;
  case 'bench':
    ensureDebianPackages(missingTools({ bench: true }));
    // The bench's own output, the JSON report included, keeps stdout.
    process.exit(run(pnpm, ['--silent', 'run', 'bench:run', ...rest], { stdio: 'inherit', env: pythonWithNumpy() }));
    break;
  default:
    fail(`unknown command "${command}" (use install, start, test or bench)`);
}
