// A domain name is its label bytes (RFC 1035 §3.1); text is only a view with zone-file escapes.

export class NameError extends Error {
  override name = 'NameError';
}

export const MAX_LABEL_LENGTH = 63;
export const MAX_NAME_LENGTH = 255;

const lowerTable = new Uint8Array(256);
for (let i = 0; i < 256; i++) lowerTable[i] = i >= 0x41 && i <= 0x5a ? i + 32 : i;

/** ASCII-only lower casing of one byte (RFC 4343). */
export function lowerByte(b: number): number {
  return lowerTable[b];
}

// Characters that zone-file text must escape with a backslash.
const escapedChars = new Set([0x2e, 0x3b, 0x5c, 0x28, 0x29, 0x22, 0x40, 0x24]);

export class Name {
  /** Uncompressed wire form: length-prefixed labels ending in the root's zero byte. */
  readonly wire: Uint8Array;
  #labels: Uint8Array[] | undefined;
  // Map keys and texts are asked for over and over (each lookup by name, each finding): made once.
  #key: string | undefined;
  #text: string | undefined;
  #lower: Name | undefined;

  /** Takes ownership of `wire`, which must already be a valid uncompressed name. */
  constructor(wire: Uint8Array) {
    this.wire = wire;
  }

  static readonly root = new Name(new Uint8Array([0]));

  static fromLabels(labels: readonly Uint8Array[]): Name {
    let length = 1;
    for (const label of labels) {
      if (label.length === 0) throw new NameError('empty label');
      if (label.length > MAX_LABEL_LENGTH) throw new NameError(`label longer than ${MAX_LABEL_LENGTH} bytes`);
      length += label.length + 1;
    }
    if (length > MAX_NAME_LENGTH) throw new NameError(`name longer than ${MAX_NAME_LENGTH} bytes`);
    const wire = new Uint8Array(length);
    let at = 0;
    for (const label of labels) {
      wire[at++] = label.length;
      wire.set(label, at);
      at += label.length;
    }
    return new Name(wire);
  }

  /**
   * Parses presentation text (`\.`, `\DDD` escapes). A name without a final dot is relative:
   * it gets `origin` appended, or is taken as absolute when there is no origin.
   */
  static fromString(text: string, origin?: Name): Name {
    if (text === '.') return Name.root;
    if (text === '@' && origin) return origin;
    if (text === '') throw new NameError('empty name');
    const labels: Uint8Array[] = [];
    let current: number[] = [];
    let absolute = false;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x2e) {
        if (current.length === 0) throw new NameError(`empty label in "${text}"`);
        labels.push(Uint8Array.from(current));
        current = [];
        if (i === text.length - 1) absolute = true;
      } else if (c === 0x5c) {
        const next = text.charCodeAt(i + 1);
        if (Number.isNaN(next)) throw new NameError(`dangling backslash in "${text}"`);
        if (next >= 0x30 && next <= 0x39) {
          const digits = text.slice(i + 1, i + 4);
          if (!/^\d{3}$/.test(digits) || Number(digits) > 255) throw new NameError(`bad \\DDD escape in "${text}"`);
          current.push(Number(digits));
          i += 3;
        } else {
          if (next > 0x7f) throw new NameError(`non-ASCII character in "${text}"`);
          current.push(next);
          i += 1;
        }
      } else {
        if (c > 0x7f) throw new NameError(`non-ASCII character in "${text}" (convert IDNs with domainToAscii first)`);
        current.push(c);
      }
    }
    if (current.length > 0) labels.push(Uint8Array.from(current));
    if (!absolute && origin) return Name.fromLabels([...labels, ...origin.labels]);
    return Name.fromLabels(labels);
  }

  /** Labels from the leftmost, without the root's empty label. */
  get labels(): readonly Uint8Array[] {
    if (this.#labels) return this.#labels;
    const labels: Uint8Array[] = [];
    for (let at = 0; this.wire[at] !== 0; at += this.wire[at] + 1) {
      labels.push(this.wire.subarray(at + 1, at + 1 + this.wire[at]));
    }
    this.#labels = labels;
    return labels;
  }

  get labelCount(): number {
    let count = 0;
    for (let at = 0; this.wire[at] !== 0; at += this.wire[at] + 1) count++;
    return count;
  }

  get isRoot(): boolean {
    return this.wire.length === 1;
  }

  /** The name with its leftmost label removed; the root has no parent. */
  parent(): Name | undefined {
    if (this.isRoot) return undefined;
    return new Name(this.wire.subarray(this.wire[0] + 1));
  }

  /** True when this name equals `ancestor` or lies below it. */
  isSubdomainOf(ancestor: Name): boolean {
    const offset = this.wire.length - ancestor.wire.length;
    if (offset < 0) return false;
    // The suffix must start on a label boundary.
    let at = 0;
    while (at < offset) at += this.wire[at] + 1;
    if (at !== offset) return false;
    return bytesEqualIgnoringCase(this.wire, offset, ancestor.wire, 0, ancestor.wire.length);
  }

  equals(other: Name): boolean {
    return this.wire.length === other.wire.length && bytesEqualIgnoringCase(this.wire, 0, other.wire, 0, this.wire.length);
  }

  /** RFC 4034 §6.1 canonical order: labels compared from the right, as lower-cased byte strings. */
  compareCanonical(other: Name): number {
    const a = this.labels;
    const b = other.labels;
    for (let i = a.length - 1, j = b.length - 1; i >= 0 && j >= 0; i--, j--) {
      const la = a[i];
      const lb = b[j];
      const n = Math.min(la.length, lb.length);
      for (let k = 0; k < n; k++) {
        const d = lowerTable[la[k]] - lowerTable[lb[k]];
        if (d !== 0) return d;
      }
      if (la.length !== lb.length) return la.length - lb.length;
    }
    return a.length - b.length;
  }

  /** A copy with ASCII letters lower-cased (the canonical form of RFC 4034 §6.2). */
  toLowerCase(): Name {
    if (this.#lower) return this.#lower;
    const wire = new Uint8Array(this.wire.length);
    let changed = false;
    // Length bytes are at most 63, below 'A' (65), so the whole wire form can be mapped.
    for (let i = 0; i < wire.length; i++) {
      wire[i] = lowerTable[this.wire[i]]!;
      if (wire[i] !== this.wire[i]) changed = true;
    }
    // A name already in lower case is its own copy: names never change.
    this.#lower = changed ? new Name(wire) : this;
    return this.#lower;
  }

  /** A string usable as a case-insensitive map key. */
  key(): string {
    if (this.#key !== undefined) return this.#key;
    let s = '';
    for (let i = 0; i < this.wire.length; i++) s += String.fromCharCode(lowerTable[this.wire[i]]);
    this.#key = s;
    return s;
  }

  /** Fully qualified presentation form with a final dot; the root is ".". */
  toString(): string {
    if (this.#text !== undefined) return this.#text;
    if (this.isRoot) return '.';
    let s = '';
    for (let at = 0; this.wire[at] !== 0;) {
      const end = at + 1 + this.wire[at];
      for (let i = at + 1; i < end; i++) {
        const b = this.wire[i];
        if (escapedChars.has(b)) s += '\\' + String.fromCharCode(b);
        else if (b < 0x21 || b > 0x7e) s += '\\' + String(b).padStart(3, '0');
        else s += String.fromCharCode(b);
      }
      s += '.';
      at = end;
    }
    this.#text = s;
    return s;
  }
}

function bytesEqualIgnoringCase(a: Uint8Array, aStart: number, b: Uint8Array, bStart: number, length: number): boolean {
  for (let i = 0; i < length; i++) {
    if (lowerTable[a[aStart + i]] !== lowerTable[b[bStart + i]]) return false;
  }
  return true;
}
