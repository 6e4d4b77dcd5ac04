import { BIRD_TYPES, blockSpec, isMaterial, PIG_TYPES } from './catalog.js';
import type { Level, LevelCamera, LevelObject, Material } from './level.js';

/**
 * A strict reader for Science Birds level XML (any level the evaluator can load: every block type of
 * the catalog, pigs, TNT, platforms), for levels that come from outside this program. It reads what
 * the evaluator's `LevelLoader.LoadXmlLevel` reads (Assets/Scripts/Levels/LevelLoader.cs of
 * chatgpt4pcg/modified-science-birds; reference/science-birds-evaluator.md §1.1) with the same
 * defaults — `width` 1, `rotation` 0, `scaleX`/`scaleY` 1 — and rejects everything else with a
 * {@link LevelXmlError} that names the line, column, element and attribute.
 *
 * Safety: a small hand-written tokenizer, no XML library. No DTD (a `<!DOCTYPE` or `<!ENTITY` is an
 * error), so no entity expansion beyond the five predefined entities and numeric character
 * references; the input size and the number of objects are bounded; numbers must be plain finite
 * decimals (no NaN, Infinity, hex, thousands separators or decimal commas) within a sane magnitude.
 *
 * Unity's reader is a forward-only `XmlReader` loop that expects exactly one whitespace node after
 * each object; layouts it would misread (compact XML, comments between objects, `<Block></Block>`
 * pairs) and blocks without `material` (which make `ABGameWorld.DecodeLevel`'s `Enum.Parse` throw)
 * are accepted here and reported in `warnings`, so a level that works headlessly but would not load
 * the same way in Unity is never silent.
 */

export interface ReadLevelXmlOptions {
  /** Largest accepted input, in characters (UTF-16 code units; = bytes for ASCII files). Default 1 MiB. */
  maxSize?: number;
  /** Largest number of objects (birds + game objects). Default 10,000 (a full 20×16 competition grid has ≤ 320). */
  maxObjects?: number;
  /** Largest accepted |value| of a coordinate, rotation or scale. Default 1e6 (the evaluator's world is ±26.25 wide). */
  maxMagnitude?: number;
}

export interface LevelXmlResult {
  level: Level;
  /** Input that this reader accepts but Unity's LevelLoader would misread or fail to load. */
  warnings: string[];
}

export const DEFAULT_MAX_LEVEL_SIZE = 1024 * 1024;
export const DEFAULT_MAX_LEVEL_OBJECTS = 10_000;
export const DEFAULT_MAX_MAGNITUDE = 1e6;
/** `width` creates that many 17.49-wide ground tiles (`ABGameWorld.DecodeLevel`); competition levels use 3. */
export const MAX_LEVEL_WIDTH = 100;

/** Deepest element nesting accepted (a level needs 3: Level > GameObjects > Block). */
const MAX_DEPTH = 16;
/** Most attributes on one element (Platform, the largest, has 6). */
const MAX_ATTRIBUTES = 64;
/** Longest element or attribute name. */
const MAX_NAME_LENGTH = 256;

/** A malformed or hostile level: names where (1-based line and column) and what. */
export class LevelXmlError extends Error {
  readonly line: number;
  readonly column: number;
  readonly element: string | undefined;
  readonly attribute: string | undefined;
  constructor(message: string, line: number, column: number, element?: string, attribute?: string) {
    const where = `line ${line}, column ${column}`;
    const what = element ? (attribute ? ` <${element}> attribute "${attribute}":` : ` <${element}>:`) : '';
    super(`${where}:${what} ${message}`);
    this.name = 'LevelXmlError';
    this.line = line;
    this.column = column;
    this.element = element;
    this.attribute = attribute;
  }
}

/** Parses a Science Birds level; throws {@link LevelXmlError} on malformed input. */
export function parseLevelXml(xml: string, options: ReadLevelXmlOptions = {}): Level {
  return readLevelXml(xml, options).level;
}

/** Like {@link parseLevelXml}, and also lists what Unity's LevelLoader would misread. */
export function readLevelXml(xml: string, options: ReadLevelXmlOptions = {}): LevelXmlResult {
  const maxSize = options.maxSize ?? DEFAULT_MAX_LEVEL_SIZE;
  const maxObjects = options.maxObjects ?? DEFAULT_MAX_LEVEL_OBJECTS;
  const maxMagnitude = options.maxMagnitude ?? DEFAULT_MAX_MAGNITUDE;
  if (typeof xml !== 'string') throw new TypeError('level XML must be a string');
  if (xml.length > maxSize) {
    throw new LevelXmlError(`input is ${xml.length} characters, more than the limit of ${maxSize}`, 1, 1);
  }
  const root = new Tokenizer(xml, maxObjects + 16).document();
  return new LevelBuilder(xml, maxObjects, maxMagnitude).build(root);
}

// ---------------------------------------------------------------------------------------------------
// Tokenizer: a well-formed, DTD-free XML subset into a small tree.

interface XmlAttribute {
  name: string;
  value: string;
  /** Offset of the attribute name (for error positions). */
  offset: number;
}

interface XmlElement {
  kind: 'element';
  name: string;
  offset: number;
  attributes: XmlAttribute[];
  /** `<x/>` (one node for XmlReader) rather than `<x></x>` (two nodes). */
  selfClosing: boolean;
  children: XmlNode[];
}

/** Whitespace runs and comments are kept as nodes: Unity's reader counts them. */
type XmlNode = XmlElement | { kind: 'space'; offset: number } | { kind: 'comment'; offset: number };

/** Characters XML 1.0 forbids anywhere in a document (C0 controls except tab, LF, CR; U+FFFE/U+FFFF). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the control characters XML 1.0 forbids (§2.2 Char).
const FORBIDDEN_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
const NAME_START = /[A-Za-z_:]/;
const NAME_CHAR = /[A-Za-z0-9_.:-]/;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

class Tokenizer {
  private i = 0;
  private elements = 0;

  constructor(
    private readonly s: string,
    private readonly maxElements: number,
  ) {}

  private fail(message: string, offset = this.i, element?: string, attribute?: string): never {
    const { line, column } = lineColumn(this.s, offset);
    throw new LevelXmlError(message, line, column, element, attribute);
  }

  document(): XmlElement {
    const s = this.s;
    const bad = FORBIDDEN_CHAR.exec(s);
    if (bad)
      this.fail(`contains the control character U+${bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}, which XML does not allow`, bad.index);
    if (s.charCodeAt(0) === 0xfeff) this.i = 1; // byte order mark
    if (s.startsWith('<?xml', this.i) && (isSpace(s.charCodeAt(this.i + 5)) || s.startsWith('?>', this.i + 5))) this.declaration();
    let root: XmlElement | undefined;
    for (;;) {
      this.skipSpace();
      if (this.i >= s.length) break;
      if (s.charCodeAt(this.i) !== 0x3c /* < */) {
        this.fail(root ? 'unexpected text after the end of the <Level> element' : 'unexpected text before the root element');
      }
      if (this.markup()) continue;
      if (root) this.fail(`unexpected element after the end of the <${root.name}> element (only one root element is allowed)`);
      if (s.charCodeAt(this.i + 1) === 0x2f /* / */) this.fail('end tag without a matching start tag');
      root = this.element();
    }
    if (!root) this.fail(s.trim().length === 0 ? 'empty document: expected a <Level> element' : 'no root element', this.i);
    return root;
  }

  /** `<?xml version="1.0" encoding="…"?>` at the very start; its encoding is ignored (so does Unity). */
  private declaration(): void {
    const start = this.i;
    this.i += 5;
    const end = this.s.indexOf('?>', this.i);
    if (end < 0) this.fail('unclosed XML declaration (missing "?>")', start);
    const body = this.s.slice(this.i, end);
    if (!/^(\s+(version|encoding|standalone)\s*=\s*("[^"<&]*"|'[^'<&]*'))*\s*$/.test(body) || !/\bversion\s*=/.test(body)) {
      this.fail('malformed XML declaration', start);
    }
    const version = /version\s*=\s*["']([^"']*)["']/.exec(body)?.[1];
    if (version !== '1.0') this.fail(`unsupported XML version "${version}" (expected 1.0)`, start);
    this.i = end + 2;
  }

  private skipSpace(): void {
    const s = this.s;
    while (this.i < s.length && isSpace(s.charCodeAt(this.i))) this.i++;
  }

  /** Comments, and everything this reader refuses; returns true when a comment was consumed. */
  private markup(): boolean {
    const s = this.s;
    const at = this.i;
    if (s.startsWith('<!--', at)) {
      const end = s.indexOf('--', at + 4);
      if (end < 0) this.fail('unclosed comment (missing "-->")', at);
      if (s.charCodeAt(end + 2) !== 0x3e) this.fail('"--" is not allowed inside a comment', end);
      this.i = end + 3;
      return true;
    }
    if (s.startsWith('<!DOCTYPE', at) || s.startsWith('<!ENTITY', at) || s.startsWith('<!doctype', at)) {
      this.fail('DOCTYPE and ENTITY declarations are not allowed (a level needs no DTD; entity expansion is refused)', at);
    }
    if (s.startsWith('<![CDATA[', at)) this.fail('CDATA sections are not allowed in a level', at);
    if (s.startsWith('<!', at)) this.fail('markup declarations are not allowed in a level', at);
    if (s.startsWith('<?', at)) this.fail('processing instructions are not allowed (only the XML declaration, at the very start)', at);
    return false;
  }

  private name(what: string): string {
    const s = this.s;
    const start = this.i;
    if (start >= s.length || !NAME_START.test(s[start]!)) this.fail(`expected ${what}`, start);
    this.i++;
    while (this.i < s.length && NAME_CHAR.test(s[this.i]!)) this.i++;
    if (this.i - start > MAX_NAME_LENGTH) this.fail(`name longer than ${MAX_NAME_LENGTH} characters`, start);
    return s.slice(start, this.i);
  }

  private element(depth = 1): XmlElement {
    const s = this.s;
    const offset = this.i;
    if (++this.elements > this.maxElements) this.fail(`more than ${this.maxElements} elements`, offset);
    if (depth > MAX_DEPTH) this.fail(`elements nested more than ${MAX_DEPTH} deep`, offset);
    this.i++; // <
    const name = this.name('an element name after "<"');
    const attributes: XmlAttribute[] = [];
    for (;;) {
      const before = this.i;
      this.skipSpace();
      if (this.i >= s.length) this.fail(`unclosed start tag <${name}> (end of input)`, offset);
      const c = s.charCodeAt(this.i);
      if (c === 0x2f /* / */) {
        if (s.charCodeAt(this.i + 1) !== 0x3e) this.fail(`expected "/>" to close <${name}>`, this.i);
        this.i += 2;
        return { kind: 'element', name, offset, attributes, selfClosing: true, children: [] };
      }
      if (c === 0x3e /* > */) {
        this.i++;
        break;
      }
      if (this.i === before) this.fail(`expected whitespace, "/>" or ">" in <${name}>`, this.i, name);
      const attrOffset = this.i;
      const attrName = this.name(`an attribute name or the end of <${name}>`);
      this.skipSpace();
      if (s.charCodeAt(this.i) !== 0x3d /* = */) this.fail('expected "=" after the attribute name', this.i, name, attrName);
      this.i++;
      this.skipSpace();
      const quote = s.charCodeAt(this.i);
      if (quote !== 0x22 && quote !== 0x27) this.fail('attribute value must be quoted', this.i, name, attrName);
      const valueStart = this.i + 1;
      const valueEnd = s.indexOf(quote === 0x22 ? '"' : "'", valueStart);
      if (valueEnd < 0) this.fail('unclosed attribute value (end of input)', this.i, name, attrName);
      const raw = s.slice(valueStart, valueEnd);
      const lt = raw.indexOf('<');
      if (lt >= 0) this.fail('"<" is not allowed in an attribute value', valueStart + lt, name, attrName);
      if (attributes.length >= MAX_ATTRIBUTES) this.fail(`more than ${MAX_ATTRIBUTES} attributes`, attrOffset, name);
      for (const a of attributes) if (a.name === attrName) this.fail('duplicate attribute', attrOffset, name, attrName);
      attributes.push({ name: attrName, value: this.attributeValue(raw, valueStart, name, attrName), offset: attrOffset });
      this.i = valueEnd + 1;
    }
    // Content: child elements, whitespace and comments only (a level has no text).
    const children: XmlNode[] = [];
    for (;;) {
      const textStart = this.i;
      this.skipSpace();
      if (this.i > textStart) children.push({ kind: 'space', offset: textStart });
      if (this.i >= s.length) this.fail(`unclosed element <${name}> (end of input before </${name}>)`, offset);
      if (s.charCodeAt(this.i) !== 0x3c) this.fail(`unexpected text inside <${name}>`, this.i);
      if (s.charCodeAt(this.i + 1) === 0x2f) {
        const endOffset = this.i;
        this.i += 2;
        const endName = this.name('an element name after "</"');
        this.skipSpace();
        if (s.charCodeAt(this.i) !== 0x3e) this.fail(`expected ">" to end </${endName}>`, this.i);
        this.i++;
        if (endName !== name) this.fail(`</${endName}> does not match the open element <${name}> (is <${name}> unclosed?)`, endOffset);
        return { kind: 'element', name, offset, attributes, selfClosing: false, children };
      }
      const at = this.i;
      if (this.markup()) {
        children.push({ kind: 'comment', offset: at });
        continue;
      }
      children.push(this.element(depth + 1));
    }
  }

  /** Decodes the five predefined entities and numeric references; normalises tab/CR/LF to spaces (XML §3.3.3). */
  private attributeValue(raw: string, offset: number, element: string, attribute: string): string {
    if (raw.indexOf('&') < 0 && !/[\t\n\r]/.test(raw)) return raw;
    let out = '';
    for (let k = 0; k < raw.length; k++) {
      const ch = raw[k]!;
      if (ch === '&') {
        const semi = raw.indexOf(';', k);
        const ref = semi < 0 ? '' : raw.slice(k + 1, semi);
        let decoded: string | undefined;
        if (ref === 'lt') decoded = '<';
        else if (ref === 'gt') decoded = '>';
        else if (ref === 'amp') decoded = '&';
        else if (ref === 'quot') decoded = '"';
        else if (ref === 'apos') decoded = "'";
        else if (/^#[0-9]{1,7}$/.test(ref) || /^#x[0-9A-Fa-f]{1,6}$/.test(ref)) {
          const code = ref[1] === 'x' ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
          const valid =
            code === 0x9 ||
            code === 0xa ||
            code === 0xd ||
            (code >= 0x20 && code <= 0xd7ff) ||
            (code >= 0xe000 && code <= 0xfffd) ||
            (code >= 0x10000 && code <= 0x10ffff);
          if (!valid) this.fail(`character reference &${ref}; is not a valid XML character`, offset + k, element, attribute);
          decoded = String.fromCodePoint(code);
        }
        if (decoded === undefined) {
          this.fail(
            semi < 0 ? 'a bare "&" must be written &amp;' : `undefined entity &${ref}; (only &lt; &gt; &amp; &quot; &apos; and numeric references are allowed)`,
            offset + k,
            element,
            attribute,
          );
        }
        out += decoded;
        k = semi;
      } else if (ch === '\r') {
        out += ' ';
        if (raw[k + 1] === '\n') k++;
      } else if (ch === '\n' || ch === '\t') {
        out += ' ';
      } else {
        out += ch;
      }
    }
    return out;
  }
}

// ---------------------------------------------------------------------------------------------------
// Level builder: the evaluator's element structure, attributes and defaults.

/** Plain decimal: optional sign, digits with an optional fraction, optional exponent. */
const DECIMAL = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const INTEGER = /^[+-]?[0-9]+$/;

const LEVEL_CHILDREN = ['Camera', 'Birds', 'Slingshot', 'GameObjects'] as const;
type LevelChild = (typeof LEVEL_CHILDREN)[number];
const OBJECT_ELEMENTS = new Set(['Block', 'Pig', 'TNT', 'Platform']);

const KNOWN_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  Level: ['width'],
  Camera: ['x', 'y', 'minWidth', 'maxWidth'],
  Birds: [],
  Bird: ['type'],
  Slingshot: ['x', 'y'],
  GameObjects: [],
  Block: ['type', 'material', 'x', 'y', 'rotation'],
  Pig: ['type', 'x', 'y', 'rotation'],
  TNT: ['type', 'x', 'y', 'rotation'],
  Platform: ['type', 'x', 'y', 'rotation', 'scaleX', 'scaleY'],
};

class LevelBuilder {
  private readonly warnings: string[] = [];
  private objectCount = 0;

  constructor(
    private readonly s: string,
    private readonly maxObjects: number,
    private readonly maxMagnitude: number,
  ) {}

  private fail(message: string, offset: number, element?: string, attribute?: string): never {
    const { line, column } = lineColumn(this.s, offset);
    throw new LevelXmlError(message, line, column, element, attribute);
  }

  private warn(message: string, offset: number): void {
    const { line, column } = lineColumn(this.s, offset);
    this.warnings.push(`line ${line}, column ${column}: ${message}`);
  }

  build(root: XmlElement): LevelXmlResult {
    if (root.name !== 'Level') this.fail(`the root element is <${root.name}>; a Science Birds level starts with <Level>`, root.offset);
    this.checkAttributes(root);
    const widthText = this.attr(root, 'width');
    let width = 1; // LevelLoader: level.width = 1 unless the attribute is present.
    if (widthText !== undefined) {
      const at = this.attrOffset(root, 'width');
      if (!INTEGER.test(widthText)) this.fail(`must be a whole number, got ${JSON.stringify(widthText)}`, at, 'Level', 'width');
      width = Number(widthText);
      if (width < 0 || width > MAX_LEVEL_WIDTH) this.fail(`must be between 0 and ${MAX_LEVEL_WIDTH}, got ${widthText}`, at, 'Level', 'width');
    }
    const level: Level = { width, camera: undefined, birds: [], slingshot: undefined, objects: [] };
    const seen = new Map<LevelChild, XmlElement>();
    let lastIndex = -1;
    for (const child of root.children) {
      if (child.kind !== 'element') continue;
      const index = (LEVEL_CHILDREN as readonly string[]).indexOf(child.name);
      if (index < 0) {
        this.fail(`unknown element <${child.name}> in <Level> (expected ${LEVEL_CHILDREN.map((n) => `<${n}>`).join(', ')})`, child.offset);
      }
      const name = child.name as LevelChild;
      if (seen.has(name)) this.fail(`more than one <${name}> in <Level>`, child.offset);
      seen.set(name, child);
      if (index < lastIndex) {
        this.warn(
          `<${name}> comes after <${LEVEL_CHILDREN[lastIndex]}>; Unity's LevelLoader reads Camera, Birds, Slingshot, GameObjects in that order and would not find it`,
          child.offset,
        );
      }
      lastIndex = Math.max(lastIndex, index);
      this.checkAttributes(child);
      if (name === 'Camera') level.camera = this.camera(child);
      else if (name === 'Slingshot') level.slingshot = { x: this.number(child, 'x'), y: this.number(child, 'y') };
      else if (name === 'Birds') this.birds(child, level);
      else this.gameObjects(child, level);
    }
    for (const required of ['Camera', 'Birds', 'Slingshot'] as const) {
      if (!seen.has(required)) this.warn(`<Level> has no <${required}>; Unity's LevelLoader would fail to load this level`, root.offset);
    }
    return { level, warnings: this.warnings };
  }

  private camera(el: XmlElement): LevelCamera {
    this.noChildren(el);
    return { x: this.number(el, 'x'), y: this.number(el, 'y'), minWidth: this.number(el, 'minWidth'), maxWidth: this.number(el, 'maxWidth') };
  }

  private birds(el: XmlElement, level: Level): void {
    this.checkLayout(el);
    for (const child of el.children) {
      if (child.kind !== 'element') continue;
      if (child.name !== 'Bird') this.fail(`unknown element <${child.name}> in <Birds> (expected <Bird>)`, child.offset);
      this.checkAttributes(child);
      this.noChildren(child);
      this.count(child);
      const type = this.required(child, 'type');
      if (!(BIRD_TYPES as readonly string[]).includes(type)) {
        this.fail(`unknown bird type ${JSON.stringify(type)} (expected one of ${BIRD_TYPES.join(', ')})`, this.attrOffset(child, 'type'), 'Bird', 'type');
      }
      level.birds.push(type);
    }
  }

  private gameObjects(el: XmlElement, level: Level): void {
    this.checkLayout(el);
    for (const child of el.children) {
      if (child.kind !== 'element') continue;
      if (!OBJECT_ELEMENTS.has(child.name)) {
        this.fail(`unknown element <${child.name}> in <GameObjects> (expected <Block>, <Pig>, <TNT> or <Platform>)`, child.offset);
      }
      this.checkAttributes(child);
      this.noChildren(child);
      this.count(child);
      level.objects.push(this.object(child));
    }
  }

  private object(el: XmlElement): LevelObject {
    const x = this.number(el, 'x');
    const y = this.number(el, 'y');
    const rotation = this.optionalNumber(el, 'rotation') ?? 0; // LevelLoader: rotation defaults to 0.
    switch (el.name) {
      case 'Block': {
        const type = this.required(el, 'type');
        if (!blockSpec(type)) this.fail(`unknown block type ${JSON.stringify(type)}`, this.attrOffset(el, 'type'), 'Block', 'type');
        const materialText = this.attr(el, 'material');
        let material: Material = 'wood';
        if (materialText === undefined) {
          // The loader allows it, but DecodeLevel's Enum.Parse("") throws and stops building the level.
          this.warn(
            `<Block> without "material": read as wood (the block prefab's default), but Unity's ABGameWorld.DecodeLevel would throw and stop loading the level here`,
            el.offset,
          );
        } else if (isMaterial(materialText)) {
          material = materialText;
        } else {
          this.fail(`unknown material ${JSON.stringify(materialText)} (expected wood, stone or ice)`, this.attrOffset(el, 'material'), 'Block', 'material');
        }
        return { kind: 'block', type, material, x, y, rotation };
      }
      case 'Pig': {
        const type = this.required(el, 'type');
        if (!(PIG_TYPES as readonly string[]).includes(type)) {
          this.fail(`unknown pig type ${JSON.stringify(type)} (expected one of ${PIG_TYPES.join(', ')})`, this.attrOffset(el, 'type'), 'Pig', 'type');
        }
        return { kind: 'pig', type, x, y, rotation };
      }
      case 'TNT':
        // The type is read but ignored: the game always uses the TNT prefab.
        return { kind: 'tnt', type: this.attr(el, 'type') ?? '', x, y, rotation };
      default: {
        // Platform: one prefab, scaled; scaleX/scaleY default to 1 (LevelLoader).
        const scaleX = this.optionalNumber(el, 'scaleX') ?? 1;
        const scaleY = this.optionalNumber(el, 'scaleY') ?? 1;
        return { kind: 'platform', type: this.attr(el, 'type') ?? '', x, y, rotation, scaleX, scaleY };
      }
    }
  }

  private count(el: XmlElement): void {
    if (++this.objectCount > this.maxObjects) this.fail(`more than ${this.maxObjects} objects`, el.offset);
  }

  /**
   * Unity reads a container with one `Read()` after its start tag and one after each object, so it
   * needs exactly: whitespace, then (self-closing object, whitespace) repeated, then the end tag.
   */
  private checkLayout(el: XmlElement): void {
    const nodes = el.children;
    let ok = !el.selfClosing && nodes.length % 2 === 1 && nodes[0]?.kind === 'space';
    for (let k = 1; ok && k < nodes.length; k += 2) {
      const object = nodes[k]!;
      ok = object.kind === 'element' && object.selfClosing && nodes[k + 1]?.kind === 'space';
    }
    if (!ok) {
      this.warn(
        `<${el.name}> layout: Unity's LevelLoader expects one whitespace run after <${el.name}> and after each self-closing child, with no comments; it would skip or misread children here (compact XML, comments, <X></X> pairs or an empty-element container)`,
        el.offset,
      );
    }
  }

  private noChildren(el: XmlElement): void {
    const child = el.children.find((c) => c.kind === 'element');
    if (child) this.fail(`<${el.name}> cannot contain elements (found <${(child as XmlElement).name}>)`, child.offset);
  }

  private checkAttributes(el: XmlElement): void {
    const known = KNOWN_ATTRIBUTES[el.name] ?? [];
    for (const a of el.attributes) {
      if (!known.includes(a.name)) this.warn(`<${el.name}> attribute "${a.name}" is not read by the evaluator and is ignored`, a.offset);
    }
  }

  private attr(el: XmlElement, name: string): string | undefined {
    for (const a of el.attributes) if (a.name === name) return a.value;
    return undefined;
  }

  private attrOffset(el: XmlElement, name: string): number {
    for (const a of el.attributes) if (a.name === name) return a.offset;
    return el.offset;
  }

  private required(el: XmlElement, name: string): string {
    const value = this.attr(el, name);
    if (value === undefined) this.fail('missing (required by the evaluator)', el.offset, el.name, name);
    return value;
  }

  private number(el: XmlElement, name: string): number {
    const value = this.optionalNumber(el, name);
    if (value === undefined) this.fail('missing (required by the evaluator)', el.offset, el.name, name);
    return value;
  }

  /** Culture-invariant decimal, as `Convert.ToDouble` reads it on an invariant/en-US machine, but strict. */
  private optionalNumber(el: XmlElement, name: string): number | undefined {
    const text = this.attr(el, name);
    if (text === undefined) return undefined;
    const at = this.attrOffset(el, name);
    if (!DECIMAL.test(text)) {
      const hint = /,/.test(text)
        ? ' (use "." as the decimal separator and no thousands separator)'
        : /nan|inf/i.test(text)
          ? ' (NaN and Infinity are not allowed)'
          : /^[+-]?0x/i.test(text)
            ? ' (hexadecimal is not allowed)'
            : '';
      this.fail(`is not a plain decimal number: ${JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)}${hint}`, at, el.name, name);
    }
    const value = Number(text);
    if (!Number.isFinite(value) || Math.abs(value) > this.maxMagnitude) {
      this.fail(`${text} is out of range (|value| must be at most ${this.maxMagnitude})`, at, el.name, name);
    }
    return value;
  }
}
