import { type Fields, type FieldType, MESSAGES, type WireMessage } from '../bridge/messages.js';
import { type Message, toWire } from '../bridge/protocol.js';

/**
 * The shared protocol samples (test/bridge/samples.ts) as C# (unity-plugin/Tests/Samples.cs), so the
 * cross-language test feeds both encoders the very same messages. Written by `npm run protocol:cs`
 * with Messages.cs; rendered from each sample's wire form and the definition (bridge/messages.ts).
 */

const HEADER = `// GENERATED from test/bridge/samples.ts by \`npm run protocol:cs\`: do not edit. One sample of
// every message type, built in C#; the cross-language test (test/bridge/unity-plugin.test.ts) checks
// that the C# encoder writes the same bytes as the TypeScript one for each.`;

/** A C# string literal: ASCII only, everything else as UTF-16 escapes. */
function csString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i += 1) {
    const c = s.charCodeAt(i);
    const ch = s[i] as string;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (c >= 0x20 && c < 0x7f) out += ch;
    else out += `\\u${c.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return `${out}"`;
}

function csNumber(n: number, suffix: 'd' | 'f'): string {
  if (!Number.isFinite(n)) throw new Error(`a sample holds ${n}, which msgpack maps may not carry`);
  return `${n}${suffix}`;
}

function csInt(n: number): string {
  return n >= -(2 ** 31) && n < 2 ** 31 ? String(n) : `${n}L`;
}

function render(type: FieldType, value: unknown, indent: string): string {
  switch (type.kind) {
    case 'string':
    case 'enum':
      return csString(value as string);
    case 'int':
      return csInt(value as number);
    case 'number':
      return csNumber(value as number, 'd');
    case 'bool':
      return value ? 'true' : 'false';
    case 'bytes': {
      const bytes = value as Uint8Array;
      if (!type.float32) return `new byte[] { ${Array.from(bytes, (b) => `0x${b.toString(16).padStart(2, '0')}`).join(', ')} }`;
      const floats = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
      return `new float[] { ${Array.from(floats, (f) => csNumber(f, 'f')).join(', ')} }`;
    }
    case 'map':
      return `new ${type.struct.name} { ${members(type.struct.fields, value as Record<string, unknown>, indent)} }`;
    case 'union': {
      const item = value as Record<string, unknown>;
      const variant = item[type.tag] as string;
      const fields = type.variants[variant];
      if (!fields) throw new Error(`${type.name} has no variant ${variant}`);
      const args = Object.entries(fields).map(([name, field]) => render(field.type, item[name], indent));
      return `${type.name}.${variant.charAt(0).toUpperCase()}${variant.slice(1)}(${args.join(', ')})`;
    }
    case 'list': {
      const items = (value as unknown[]).map((v) => render(type.of, v, `${indent}    `));
      if (type.of.kind === 'string' || items.length === 0) return `new List<${itemType(type.of)}> { ${items.join(', ')} }`;
      return `new List<${itemType(type.of)}>\n${indent}{\n${items.map((i) => `${indent}    ${i},`).join('\n')}\n${indent}}`;
    }
  }
}

function itemType(type: FieldType): string {
  if (type.kind === 'map') return type.struct.name;
  if (type.kind === 'union') return type.name;
  if (type.kind === 'string') return 'string';
  throw new Error(`no C# list of ${type.kind}`);
}

function members(fields: Fields, wire: Record<string, unknown>, indent: string): string {
  return Object.entries(fields)
    .filter(([name]) => wire[name] !== undefined)
    .map(([name, field]) => `${field.cs ?? `${name.charAt(0).toUpperCase()}${name.slice(1)}`} = ${render(field.type, wire[name], indent)}`)
    .join(', ');
}

function sample(m: Message): string {
  const wire = toWire(m) as WireMessage & Record<string, unknown>;
  const cls = `${wire.type.charAt(0).toUpperCase()}${wire.type.slice(1)}Message`;
  return `new ${cls} { ${members(MESSAGES[wire.type].fields, wire, '                ')} }`;
}

/** The whole of Samples.cs for these samples. */
export function generateSamplesCs(samples: Message[]): string {
  const lines = [
    HEADER,
    '',
    'using System.Collections.Generic;',
    'using Sbeval.Bridge;',
    '',
    'namespace Sbeval.Bridge.Tests',
    '{',
    '    public static class Samples',
    '    {',
    '        public static List<Message> All()',
    '        {',
    '            return new List<Message>',
    '            {',
    ...samples.map((m) => `                ${sample(m)},`),
    '            };',
    '        }',
    '    }',
    '}',
    '',
  ];
  return lines.join('\n');
}
