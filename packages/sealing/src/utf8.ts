/**
 * UTF-8 with lone surrogates encoded as their own 3-byte sequences (Python's "surrogatepass").
 * Buffer.from would replace them with U+FFFD, so two different strings would hash alike; this keeps
 * the bytes we hash identical to what the reference implementation hashes.
 */
export function encodeUtf8SurrogatePass(text: string): Buffer {
  if (isWellFormed(text)) return Buffer.from(text, "utf8");
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (isHighSurrogate(unit) && isLowSurrogate(next)) {
      pushCodePoint(bytes, 0x10000 + ((unit - 0xd800) << 10) + (next - 0xdc00));
      i++;
    } else {
      pushCodePoint(bytes, unit);
    }
  }
  return Buffer.from(bytes);
}

/** True when the string has no lone surrogate, i.e. it is valid Unicode text. */
export function isWellFormed(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    if (isHighSurrogate(unit) && isLowSurrogate(text.charCodeAt(i + 1))) {
      i++;
      continue;
    }
    return false;
  }
  return true;
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

function pushCodePoint(bytes: number[], cp: number): void {
  if (cp < 0x80) {
    bytes.push(cp);
  } else if (cp < 0x800) {
    bytes.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    bytes.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  } else {
    bytes.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  }
}
