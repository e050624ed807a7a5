import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { parsePbtxt } from '@ensemble-studio/core';
import { loadRepository } from '../repo/loadRepository.ts';
import { makeTestRepository } from '../testing/testRepository.ts';
import { runBin } from '../testing/cliTestUtil.ts';
import { tempDir } from '../testing/tempDir.ts';

const repo = makeTestRepository();
const noStack = (s: string) => expect(s).not.toMatch(/\n\s+at /);

describe('usage errors (exit 2, one line, no stack)', () => {
  it.each([
    [[], /usage: ensemble-studio/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['validate', '--bogus'], /Unknown option '--bogus'/],
    [['compile', 'pipe', '--repo', repo], /needs --out/],
    [['compile', '--repo', repo, '--out', '/tmp/x'], /needs a graph/],
    [['run', 'pipe', '--repo', repo, '--input', 'nonsense'], /NAME=FILE/],
    [['serve', '--port', 'abc'], /--port expects/],
    [['serve', '--grpc-port', '80x'], /--grpc-port expects 0–65535 or off, got "80x"/],
    [['serve', '--metrics-port', '8002x'], /--metrics-port expects 0–65535 or off, got "8002x"/],
    [['serve', '--host', '0.0.0.0', '--port', '0', '--repo', repo], /refusing to listen on 0\.0\.0\.0 without --token/],
    [['serve', '--grpc-port', '-1'], /--grpc-port needs a value; one starting with "-" is given as --grpc-port=VALUE/],
    [['serve', '--grpc-port=-1'], /--grpc-port expects 0–65535 or off, got "-1"/],
    [['serve', '--port', '0x50'], /--port expects 0–65535, got "0x50"/],
    [['serve', '--event-loop', 'fifo'], /--event-loop expects realtime, slice or off, got "fifo"/],
    [['serve', '--log-verbose=-1'], /--log-verbose expects a whole number 0–4294967295, got "-1"/],
    [['serve', '--log-verbose', 'high'], /--log-verbose expects a whole number 0–4294967295, got "high"/],
    [['serve', '--trace-config', 'rate=fast'], /Bad option: "--trace-config rate"\.\nInvalid option value\. Got fast/],
    [['serve', '--trace-config', 'opentelemetry,url=x'], /the studio writes Triton trace files only/],
    [
      ['serve', '--cache-config', 'size=1'],
      /No cache specified\. --cache-config option format is <cache name>,<setting>=<value>\. Got size=1/,
    ],
    [
      ['serve', '--cache-config', 'local,size=1', '--response-cache-byte-size', '1'],
      /Incompatible flags --response-cache-byte-size and --cache-config both provided/,
    ],
    [['serve', '--port', '1e3'], /--port expects 0–65535, got "1e3"/],
    [['serve', '--grpc-port', ' 80'], /--grpc-port expects 0–65535 or off, got " 80"/],
    [['run', 'pipe', '--repo', repo, '--timeout', '1e400'], /--timeout expects a positive number/],
    [['serve', '--port', '0', '--repo', '/nonexistent-repo'], /--repo \/nonexistent-repo: no such directory/],
    [
      ['serve', '--port', '0', '--repo', repo, '--import-root', '/nonexistent-root'],
      /--import-root \/nonexistent-root: no such directory/,
    ],
    [['serve', '--port', '0', '--repo', join(repo, 'pipe', 'config.pbtxt')], /--repo .*config\.pbtxt: not a directory/],
  ])('%j', async (args, message) => {
    const r = await runBin(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    noStack(r.stderr);
  });
});

describe('validate', () => {
  it('checks every model and graph; exit 1 on any error, with --json', async () => {
    const r = await runBin(['validate', '--repo', repo, '--json']);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as {
      ok: boolean;
      diagnostics: { target: string; severity: string; message: string }[];
    };
    expect(out.ok).toBe(false);
    expect(out.diagnostics.some((d) => d.severity === 'error' && /bad: config\.pbtxt:4:1/.test(d.message))).toBe(true);
  });

  it('validates one graph by name (exit 0) and a GRAPH.json relative to INIT_CWD', async () => {
    expect((await runBin(['validate', 'pipe', '--repo', repo])).code).toBe(0);
    const cwd = tempDir('cli-');
    const graph = (await loadRepository(repo)).graphs.pipe!;
    writeFileSync(join(cwd, 'g.json'), JSON.stringify({ ...graph, edges: [] }));
    const r = await runBin(['validate', 'g.json', '--repo', repo], { env: { INIT_CWD: cwd } });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/g\.json: error /);
  });

  it('reports unreadable and malformed graph files in one line (exit 1)', async () => {
    const cwd = tempDir('cli-');
    writeFileSync(join(cwd, 'broken.json'), '{ nope');
    for (const [file, msg] of [
      ['missing.json', /cannot read missing\.json: ENOENT/],
      ['broken.json', /broken\.json is not JSON/],
    ] as const) {
      const r = await runBin(['validate', file, '--repo', repo], { env: { INIT_CWD: cwd } });
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(msg);
    }
  });
});

describe('compile', () => {
  it('writes the deployable repository and a zip', async () => {
    const cwd = tempDir('cli-');
    const r = await runBin(['compile', 'pipe', '--repo', repo, '--out', 'out', '--zip', 'pipe.zip'], {
      env: { INIT_CWD: cwd },
    });
    expect(r.code).toBe(0);
    const config = parsePbtxt(readFileSync(join(cwd, 'out', 'pipe', 'config.pbtxt'), 'utf8'));
    expect(config.ok && config.config.platform).toBe('ensemble');
    expect(existsSync(join(cwd, 'out', 'head', '1', 'model.onnx'))).toBe(true);
    expect(Object.keys(unzipSync(readFileSync(join(cwd, 'pipe.zip'))))).toContain('pipe/config.pbtxt');
  });

  it('exits 1 with diagnostics when the graph does not compile', async () => {
    const cwd = tempDir('cli-');
    const graph = (await loadRepository(repo)).graphs.pipe!;
    writeFileSync(join(cwd, 'g.json'), JSON.stringify({ ...graph, edges: [] }));
    const r = await runBin(['compile', 'g.json', '--repo', repo, '--out', 'out'], { env: { INIT_CWD: cwd } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error/);
    expect(existsSync(join(cwd, 'out'))).toBe(false);
  });
});

describe('import', () => {
  it('writes a studio repository: models copied, configs re-printed with unknown fields, studio.json per ensemble', async () => {
    const out = join(tempDir('cli-'), 'studio');
    const r = await runBin(['import', repo, '--out', out]);
    expect(r.code).toBe(1); // the source has a broken config and a missing model file
    expect(r.stdout).toMatch(/imported 6 model\(s\) and 1 graph\(s\)/);
    expect(readFileSync(join(out, 'head', 'config.pbtxt'), 'utf8')).toMatch(/some_future_field: 7/);
    expect(
      readFileSync(join(out, 'head', '1', 'model.onnx')).equals(readFileSync(join(repo, 'head', '1', 'model.onnx'))),
    ).toBe(true);
    expect(readFileSync(join(out, 'bad', 'config.pbtxt'), 'utf8')).toBe(
      readFileSync(join(repo, 'bad', 'config.pbtxt'), 'utf8'),
    );
    const imported = await loadRepository(out);
    expect(imported.graphs.pipe?.nodes).toEqual((await loadRepository(repo)).graphs.pipe?.nodes);
    expect(existsSync(join(out, 'pipe', 'studio.json'))).toBe(true);
  });

  it('refuses to write into the source repository', async () => {
    const r = await runBin(['import', repo, '--out', join(repo, 'inside')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/must not be the source repository/);
  });

  it('refuses a --out reached through a link to the source repository', async () => {
    const link = join(tempDir('cli-'), 'link');
    symlinkSync(repo, link);
    const r = await runBin(['import', repo, '--out', join(link, 'inside')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--out must not be the source repository or inside it/);
    expect(existsSync(join(repo, 'inside'))).toBe(false);
  });
});

describe('compile into its own repository', () => {
  // Compiled files there would replace the repository's own models' files, or add models to it.
  it.each([
    ['the repository itself', (link: string) => link],
    ['a new folder inside it', (link: string) => join(link, 'compiled', 'deep')],
  ])('is refused when --out is %s (also through a link), and nothing is written', async (_what, outIn) => {
    const link = join(tempDir('cli-'), 'link');
    symlinkSync(repo, link);
    const before = readdirSync(repo).sort();
    for (const out of [outIn(repo), outIn(link)]) {
      const r = await runBin(['compile', 'pipe', '--repo', repo, '--out', out]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--out must not be the source repository or inside it/);
      noStack(r.stderr);
    }
    expect(readdirSync(repo).sort()).toEqual(before);
  });

  it('is refused when --zip lies inside it (also through a link), and nothing is written', async () => {
    // A zip written there replaced the file it was named after: `--zip REPO/head/1/model.onnx`.
    const link = join(tempDir('cli-'), 'link');
    symlinkSync(repo, link);
    const model = join('head', '1', 'model.onnx');
    const bytes = readFileSync(join(repo, model));
    for (const zip of [join(repo, model), join(link, model), join(link, 'pipe.zip')]) {
      const r = await runBin(['compile', 'pipe', '--repo', repo, '--zip', zip]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--zip must not be inside the source repository/);
      noStack(r.stderr);
    }
    expect(readFileSync(join(repo, model)).equals(bytes)).toBe(true);
    expect(existsSync(join(repo, 'pipe.zip'))).toBe(false);
  });
});
