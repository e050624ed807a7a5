/**
 * The `data:` payloads of a server-sent event stream (`/generate_stream`), parsed as JSON, each yielded as soon as its
 * event's blank line arrives.
 * @example for await (const e of sseEvents(await fetch(url, { method: 'POST', body }))) seen.push(e);
 */
export async function* sseEvents<T = Record<string, unknown>>(res: Response): AsyncGenerator<T> {
  const decoder = new TextDecoder();
  let text = '';
  const reader = res.body!.getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    text += decoder.decode(chunk.value, { stream: true });
    for (let at = text.indexOf('\n\n'); at >= 0; at = text.indexOf('\n\n')) {
      const event = text.slice(0, at);
      text = text.slice(at + 2);
      if (event.startsWith('data: ')) yield JSON.parse(event.slice(6)) as T;
    }
  }
}
