/** Go's strconv.Quote, for messages that print a value as a Go program would (CEL's strings.quote, netip's errors). */
export function goQuote(text: string): string {
  let out = '"';
  for (const c of text) {
    switch (c) {
      case '"':
        out += '\\"';
        break;
      case '\\':
        out += '\\\\';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\t':
        out += '\\t';
        break;
      case '\b':
        out += '\\b';
        break;
      case '\f':
        out += '\\f';
        break;
      case '\v':
        out += '\\v';
        break;
      case '\x07':
        out += '\\a';
        break;
      default: {
        const code = c.codePointAt(0)!;
        out += code < 0x20 || code === 0x7f ? `\\x${code.toString(16).padStart(2, '0')}` : c;
      }
    }
  }
  return `${out}"`;
}
