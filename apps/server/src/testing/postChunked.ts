import { request } from 'node:http';

/**
 * POSTs `body` to `url` with `Transfer-Encoding: chunked` (no Content-Length), in `chunks` pieces; resolves with the
 * status and text of the answer.
 * @example const { status } = await postChunked(`${url}/v2/repository/index`, Buffer.from('{"ready":true}'));
 */
export function postChunked(url: string, body: Buffer, chunks = 64): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'transfer-encoding': 'chunked' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    const step = Math.max(1, Math.ceil(body.length / chunks));
    for (let at = 0; at < body.length; at += step) req.write(body.subarray(at, at + step));
    req.end();
  });
}
