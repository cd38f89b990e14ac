/**
 * Go's string order (`sort.Strings`, `strings.Compare`): by code unit, which for the ASCII of
 * Kubernetes names is the reference's byte order. Not `localeCompare`: it orders differently
 * (`B` after `a`, `-` and `.` ignored at first) and its first call loads ICU's collator and
 * collation data, about 5 MiB of resident memory that an idle server would keep.
 */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Go's order of strings that may hold characters outside the BMP: by their UTF-8 bytes, which
 * is code point order. UTF-16 code units agree with it except that a surrogate (U+D800..DFFF,
 * half of a character above U+FFFF) sorts below U+E000..FFFF in UTF-16 and above it in UTF-8:
 * only there the two units are moved into code point order before they are compared.
 */
export function compareUtf8(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const x = a.charCodeAt(index);
    const y = b.charCodeAt(index);
    if (x === y) continue;
    if (x < 0xd800 || y < 0xd800) return x - y;
    return inCodePointOrder(x) - inCodePointOrder(y);
  }
  return a.length - b.length;
}

/** A code unit from U+D800 up, moved so that surrogates sort above U+E000..FFFF. */
function inCodePointOrder(unit: number): number {
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}
