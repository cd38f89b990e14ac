/**
 * Where Go's standard, padded base64 decoder (encoding/json's for a []byte) gives up: the offset
 * its CorruptInputError names, or undefined for text it decodes. It reads quanta of four
 * characters, skipping CR and LF; a quantum cut short is reported at its start, a character
 * outside the alphabet at itself, and padding must end the text.
 */
const ALPHABET = /[A-Za-z0-9+/]/;

function isLineBreak(character: string | undefined): boolean {
  return character === '\n' || character === '\r';
}

export function goBase64ErrorOffset(text: string): number | undefined {
  let index = 0;
  for (;;) {
    // One quantum: up to four alphabet characters, or fewer followed by padding.
    for (let read = 0; read < 4; read++) {
      if (index === text.length) {
        if (read === 0) return undefined;
        return index - read;
      }
      const character = text[index++];
      if (ALPHABET.test(character)) continue;
      if (isLineBreak(character)) {
        read--;
        continue;
      }
      if (character !== '=' || read < 2) return index - 1;
      if (read === 2) {
        // A third-place pad needs a fourth.
        while (isLineBreak(text[index])) index++;
        if (index === text.length) return text.length;
        if (text[index] !== '=') return index - 1;
        index++;
      }
      while (isLineBreak(text[index])) index++;
      return index < text.length ? index : undefined;
    }
  }
}
