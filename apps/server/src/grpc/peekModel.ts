/**
 * The model a ModelInferRequest names, read from its first bytes without decoding the rest: fields 1
 * (`model_name`) and 2 (`model_version`) come first in every encoder we know of (protobufjs, C++ and Python
 * protobuf write fields in number order). Undefined when the message does not start with them.
 * @example peekModel(encodeRequest('ModelInfer', { model_name: 'det' })) // { name: 'det', version: '' }
 */
export function peekModel(bytes: Uint8Array): { name: string; version: string } | undefined {
  const out = { name: '', version: '' };
  let at = 0;
  let seenName = false;
  while (at < bytes.length && (bytes[at] === 0x0a || bytes[at] === 0x12)) {
    const field = bytes[at] === 0x0a ? 'name' : 'version';
    // A length as a varint; names are short, so more than 4 bytes of it means this is not what it seems.
    let length = 0;
    let shift = 0;
    let i = at + 1;
    for (; i < bytes.length && shift <= 21; i++, shift += 7) {
      length |= (bytes[i]! & 0x7f) << shift;
      if (bytes[i]! < 0x80) break;
    }
    if (i >= bytes.length || bytes[i]! >= 0x80) return undefined;
    const start = i + 1;
    if (start + length > bytes.length) return undefined;
    out[field] = Buffer.from(bytes.buffer, bytes.byteOffset + start, length).toString('utf8');
    if (field === 'name') seenName = true;
    at = start + length;
  }
  return seenName ? out : undefined;
}
