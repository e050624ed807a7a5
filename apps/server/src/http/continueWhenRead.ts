import type { IncomingMessage, RequestListener } from 'node:http';

/**
 * `handler` for the requests that carry `Expect: 100-continue` (the server's `checkContinue` event): each is handled as
 * any other request, and its `100 Continue` is sent when its body is first read. One answered without reading its body
 * (413 from a Content-Length over the limit, or a refused Host, Origin or token) gets that answer alone, so the client
 * never sends the body (Node closes the connection after such an answer: no 100 was sent); without this listener Node
 * sent `100 Continue` before every such refusal.
 * @example const listener = oneRequestAtATime(app); createServer(listener).on('checkContinue', continueWhenRead(listener))
 */
export function continueWhenRead(handler: RequestListener): RequestListener {
  return (req, res) => {
    const read = req._read;
    req._read = function (this: IncomingMessage, size: number) {
      req._read = read;
      // Node reads an unread body itself to discard it once the response is sent: no 100 then.
      if (!res.headersSent) res.writeContinue();
      return read.call(this, size);
    };
    handler(req, res);
  };
}
