/** PEM text as Go's pem.Decode reads it, for the certificate kinds' validation. */

/** Go's pem.Decode, block after block: the type, whether it had headers, and the DER bytes. */
export function pemBlocks(text: string): { type: string; hasHeaders: boolean; der: Buffer }[] {
  const blocks = [];
  for (const match of text.matchAll(/-----BEGIN ([^\r\n]*?)-----\r?\n([\s\S]*?)-----END \1-----/g)) {
    const body = match[2];
    const headerEnd = body.search(/\r?\n\r?\n/);
    const hasHeaders =
      headerEnd >= 0 &&
      body
        .slice(0, headerEnd)
        .split(/\r?\n/)
        .every((line) => line.includes(':'));
    const data = hasHeaders ? body.slice(headerEnd) : body;
    blocks.push({ type: match[1], hasHeaders, der: Buffer.from(data.replace(/\s+/g, ''), 'base64') });
  }
  return blocks;
}
