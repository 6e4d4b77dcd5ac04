import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Field, type Fields, type FieldType, MESSAGES, type MessageDef, type StructDef, type UnionType } from '../bridge/messages.js';
import { sampleMessages } from '../test/bridge/samples.js';
import { generateSamplesCs } from './protocol-samples-cs.js';

/**
 * `npm run protocol:cs`: writes the Unity plugin's message types, encoders and decoders
 * (unity-plugin/Runtime/Messages.cs) from the protocol's one definition, bridge/messages.ts, and the
 * mono tests' samples (unity-plugin/Tests/Samples.cs) from test/bridge/samples.ts.
 * `npm run protocol:cs -- --check` exits 1 when a checked-in file is not what they generate. The runtime helpers the generated code calls (the field Reader, float32 conversion,
 * the envelope checks) are hand-written in unity-plugin/Runtime/Protocol.cs.
 */

const PLUGIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'unity-plugin');
export const MESSAGES_CS = join(PLUGIN, 'Runtime', 'Messages.cs');
export const SAMPLES_CS = join(PLUGIN, 'Tests', 'Samples.cs');

const HEADER = `// GENERATED from bridge/messages.ts by \`npm run protocol:cs\`: do not edit. Change the definition
// and regenerate; test/bridge/protocol-definition.test.ts fails when this file is not what the
// definition generates.
//
// The bridge protocol's messages as C# types, with their encoders and decoders (bridge/PROTOCOL.md
// §4). Fields are in wire order; optional fields are null when absent. The helpers these call
// (Reader, Float32ToBytes, the envelope checks) are in Protocol.cs.`;

/** C# keywords a wire name could collide with as a parameter (SimEvent factories). */
const CS_KEYWORDS = new Set([
  'base',
  'bool',
  'byte',
  'class',
  'default',
  'double',
  'event',
  'fixed',
  'float',
  'int',
  'long',
  'object',
  'params',
  'ref',
  'string',
  'this',
]);

function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

function member(name: string, field: Field): string {
  return field.cs ?? pascal(name);
}

function messageClass(type: string): string {
  return `${pascal(type)}Message`;
}

function csString(s: string): string {
  return JSON.stringify(s);
}

function csType(type: FieldType): string {
  switch (type.kind) {
    case 'string':
    case 'enum':
      return 'string';
    case 'int':
      return 'long';
    case 'number':
      return 'double';
    case 'bool':
      return 'bool';
    case 'bytes':
      return type.float32 ? 'float[]' : 'byte[]';
    case 'map':
      return type.struct.name;
    case 'union':
      return type.name;
    case 'list':
      return `List<${csType(type.of)}>`;
  }
}

function isReference(type: FieldType): boolean {
  return !['int', 'number', 'bool'].includes(type.kind);
}

function long(n: number | undefined, fallback: string): string {
  return n === undefined ? fallback : String(n);
}

function intLimit(n: number | undefined): string {
  return n === undefined ? 'int.MaxValue' : String(n);
}

// ---------------------------------------------------------------------------------------------
// The named types the messages use, in first-use order, and the lists of allowed values

interface Named {
  structs: StructDef[];
  unions: UnionType[];
  lists: Map<string, readonly string[]>;
}

function collect(fields: Fields, named: Named): void {
  for (const field of Object.values(fields)) collectType(field.type, named);
}

function addList(named: Named, name: string, values: readonly string[]): void {
  const known = named.lists.get(name);
  if (known && known.join('\n') !== values.join('\n')) throw new Error(`two different lists are named ${name}`);
  named.lists.set(name, values);
}

function collectType(type: FieldType, named: Named): void {
  if (type.kind === 'enum') addList(named, type.name, type.values);
  if (type.kind === 'list') collectType(type.of, named);
  if (type.kind === 'map' && !named.structs.includes(type.struct)) {
    if (named.structs.some((s) => s.name === type.struct.name)) throw new Error(`two different structs are named ${type.struct.name}`);
    named.structs.push(type.struct);
    collect(type.struct.fields, named);
  }
  if (type.kind === 'union' && !named.unions.includes(type)) {
    named.unions.push(type);
    addList(named, type.tagList, Object.keys(type.variants));
    for (const variant of Object.values(type.variants)) collect(variant, named);
  }
}

// ---------------------------------------------------------------------------------------------
// Declarations

function declareFields(fields: Fields, indent: string): string[] {
  const out: string[] = [];
  for (const [name, field] of Object.entries(fields)) {
    if (field.optional && !isReference(field.type)) throw new Error(`${name}: an optional ${field.type.kind} has no null in C#`);
    if (field.doc) out.push(`${indent}/// <summary>${field.doc}</summary>`);
    const init = field.type.kind === 'list' ? ` = new ${csType(field.type)}()` : '';
    out.push(`${indent}public ${csType(field.type)} ${member(name, field)}${init};`);
  }
  return out;
}

function declareStruct(struct: StructDef): string[] {
  return [`    public sealed class ${struct.name}`, '    {', ...declareFields(struct.fields, '        '), '    }'];
}

/** A union's fields: every variant's, in first-appearance order (a name must have one C# type). */
function unionFields(union: UnionType): Array<[string, Field]> {
  const all = new Map<string, Field>([[union.tag, { type: { kind: 'enum', name: union.tagList, values: Object.keys(union.variants) } }]]);
  for (const [variant, fields] of Object.entries(union.variants)) {
    for (const [name, field] of Object.entries(fields)) {
      if (field.optional || ['list', 'map', 'union'].includes(field.type.kind))
        throw new Error(`${union.name}.${variant}.${name}: variant fields are required scalars`);
      const known = all.get(name);
      if (known && csType(known.type) !== csType(field.type)) throw new Error(`${union.name}.${name} has two C# types`);
      if (!known) all.set(name, field);
    }
  }
  return [...all];
}

function declareUnion(union: UnionType): string[] {
  const out = [
    `    /// <summary>One ${union.name}; which fields are used depends on ${pascal(union.tag)} (${Object.keys(union.variants).join(', ')}).</summary>`,
  ];
  out.push(`    public sealed class ${union.name}`, '    {', ...declareFields(Object.fromEntries(unionFields(union)), '        '));
  for (const [variant, fields] of Object.entries(union.variants)) {
    const params = Object.entries(fields).map(([name, field]) => {
      if (CS_KEYWORDS.has(name)) throw new Error(`${union.name}.${variant}.${name} is a C# keyword`);
      return `${csType(field.type)} ${name}`;
    });
    const inits = [`${pascal(union.tag)} = ${csString(variant)}`, ...Object.entries(fields).map(([name, field]) => `${member(name, field)} = ${name}`)];
    out.push('', `        public static ${union.name} ${pascal(variant)}(${params.join(', ')})`, '        {');
    out.push(`            return new ${union.name} { ${inits.join(', ')} };`, '        }');
  }
  out.push('    }');
  return out;
}

function declareMessage(type: string, def: MessageDef): string[] {
  return [
    `    public sealed class ${messageClass(type)} : Message`,
    '    {',
    `        public override string Type { get { return ${csString(type)}; } }`,
    ...declareFields(def.fields, '        '),
    '    }',
  ];
}

// ---------------------------------------------------------------------------------------------
// Encoding: statements that add a value's fields to `map`, in wire order

function itemValue(type: FieldType, expr: string): string {
  if (type.kind === 'map') return `${type.struct.name}Value(${expr})`;
  if (type.kind === 'union') return `${type.name}Value(${expr})`;
  if (type.kind === 'list') throw new Error('a list of lists is not supported');
  if (type.kind === 'bytes' && type.float32) return `MsgValue.Of(Float32ToBytes(${expr}))`;
  return `MsgValue.Of(${expr})`;
}

function writeFields(fields: Fields, source: string, indent: string): string[] {
  const out: string[] = [];
  for (const [name, field] of Object.entries(fields)) {
    const expr = `${source}.${member(name, field)}`;
    if (field.type.kind === 'list') {
      const local = `${name}List`;
      out.push(`${indent}MsgValue ${local} = MsgValue.NewArray();`);
      out.push(`${indent}foreach (${csType(field.type.of)} item in ${expr}) ${local}.Add(${itemValue(field.type.of, 'item')});`);
      out.push(`${indent}map.Set(${csString(name)}, ${local});`);
      continue;
    }
    const set = `map.Set(${csString(name)}, ${itemValue(field.type, expr)});`;
    out.push(field.optional ? `${indent}if (${expr} != null) ${set}` : `${indent}${set}`);
  }
  return out;
}

function structWriter(struct: StructDef): string[] {
  return [
    `        private static MsgValue ${struct.name}Value(${struct.name} value)`,
    '        {',
    '            MsgValue map = MsgValue.NewMap();',
    ...writeFields(struct.fields, 'value', '            '),
    '            return map;',
    '        }',
  ];
}

function unionWriter(union: UnionType): string[] {
  const tag = pascal(union.tag);
  const out = [`        private static MsgValue ${union.name}Value(${union.name} value)`, '        {'];
  out.push(`            MsgValue map = MsgValue.NewMap().Set(${csString(union.tag)}, value.${tag});`, `            switch (value.${tag})`, '            {');
  for (const [variant, fields] of Object.entries(union.variants)) {
    out.push(`                case ${csString(variant)}:`, ...writeFields(fields, 'value', '                    '), '                    return map;');
  }
  out.push(`                default: throw new ArgumentException("unknown ${union.name} ${union.tag} " + value.${tag});`, '            }', '        }');
  return out;
}

function messageWriter(type: string, def: MessageDef): string[] {
  const cls = messageClass(type);
  return [
    `        private static void Write${cls}(${cls} message, MsgValue map)`,
    '        {',
    ...writeFields(def.fields, 'message', '            '),
    '        }',
  ];
}

function toValue(): string[] {
  const out = [
    '        /// <summary>The message as the msgpack map that goes on the wire.</summary>',
    '        public static MsgValue ToValue(Message message)',
    '        {',
  ];
  out.push('            MsgValue map = MsgValue.NewMap().Set("type", message.Type);', '            switch (message.Type)', '            {');
  for (const type of Object.keys(MESSAGES))
    out.push(`                case ${csString(type)}: Write${messageClass(type)}((${messageClass(type)})message, map); return map;`);
  out.push('                default: throw new ArgumentException("unknown message class " + message.GetType().Name);', '            }', '        }');
  return out;
}

// ---------------------------------------------------------------------------------------------
// Decoding: one Read method per type, validating every field against the definition's limits

function readScalar(type: FieldType, name: string, optional: boolean): string {
  const key = csString(name);
  switch (type.kind) {
    case 'string':
      return `r.${optional ? 'OptionalString' : 'String'}(${key}, ${intLimit(type.max)}, ${type.min ?? 0})`;
    case 'int':
      return `r.Int(${key}, ${long(type.min, 'long.MinValue')}, ${long(type.max, 'long.MaxValue')})`;
    case 'number':
      if (type.above !== undefined && type.min !== undefined) throw new Error(`${name}: give one lower bound`);
      if (type.above !== undefined) return `r.NumberAbove(${key}, ${type.above})`;
      if (type.min !== undefined) return `r.NumberAtLeast(${key}, ${type.min})`;
      return `r.Number(${key})`;
    case 'bool':
      return `r.Bool(${key})`;
    case 'enum':
      return `r.Enum(${key}, ${type.name})`;
    case 'bytes':
      return `r.${optional ? 'OptionalBin' : 'Bin'}(${key})`;
    case 'map':
      return `Read${type.struct.name}(r.Map(${key}))`;
    default:
      throw new Error(`${name}: no scalar reader for ${type.kind}`);
  }
}

function readItem(type: FieldType, items: string, path: string): string {
  if (type.kind === 'map') return `Read${type.struct.name}(r.Element(${items}[i], ${path}))`;
  if (type.kind === 'union') return `Read${type.name}(r.Element(${items}[i], ${path}))`;
  if (type.kind === 'string') return `r.StringItem(${items}[i], ${path}, ${intLimit(type.max)}, ${type.min ?? 0})`;
  throw new Error(`no list reader for ${type.kind}`);
}

function readFields(fields: Fields, target: string, indent: string): string[] {
  const out: string[] = [];
  for (const [name, field] of Object.entries(fields)) {
    const dest = `${target}.${member(name, field)}`;
    const type = field.type;
    if (type.kind === 'list') {
      const items = `${name}Items`;
      out.push(`${indent}IList<MsgValue> ${items} = r.Array(${csString(name)}, ${intLimit(type.max)});`);
      out.push(`${indent}for (int i = 0; i < ${items}.Count; i++) ${dest}.Add(${readItem(type.of, items, `${csString(`${name}.`)} + i`)});`);
    } else if (type.kind === 'bytes' && (type.cellsOf || type.float32)) {
      if (field.optional) throw new Error(`${name}: a sized or float32 byte field is required`);
      out.push(`${indent}byte[] ${name} = r.Bin(${csString(name)});`);
      if (type.cellsOf) {
        for (const f of type.cellsOf)
          if (!(f in fields) || Object.keys(fields).indexOf(f) > Object.keys(fields).indexOf(name)) throw new Error(`${name}: ${f} must come before it`);
        const names = type.cellsOf.map(csString).join(', ');
        const counts = type.cellsOf.map((f) => `${target}.${member(f, fields[f] as Field)}`).join(', ');
        out.push(`${indent}r.CheckCells(${csString(name)}, ${name}, ${type.bytesPerCell ?? 1}, new[] { ${names} }, new[] { ${counts} });`);
      }
      out.push(`${indent}${dest} = ${type.float32 ? `BytesToFloat32(${name})` : name};`);
    } else {
      out.push(`${indent}${dest} = ${readScalar(type, name, field.optional === true)};`);
    }
  }
  return out;
}

function structReader(struct: StructDef): string[] {
  return [
    `        private static ${struct.name} Read${struct.name}(Reader r)`,
    '        {',
    `            ${struct.name} value = new ${struct.name}();`,
    ...readFields(struct.fields, 'value', '            '),
    '            return value;',
    '        }',
  ];
}

function unionReader(union: UnionType): string[] {
  const out = [`        private static ${union.name} Read${union.name}(Reader r)`, '        {'];
  out.push(`            string tag = r.Enum(${csString(union.tag)}, ${union.tagList});`, '            switch (tag)', '            {');
  for (const [variant, fields] of Object.entries(union.variants)) {
    const args = Object.entries(fields).map(([name, field]) => readScalar(field.type, name, false));
    out.push(`                case ${csString(variant)}: return ${union.name}.${pascal(variant)}(${args.join(', ')});`);
  }
  out.push(`                default: throw r.Invalid(${csString(union.tag)}, "unknown");`, '            }', '        }');
  return out;
}

function messageReader(type: string, def: MessageDef): string[] {
  const cls = messageClass(type);
  return [
    `        private static ${cls} Read${cls}(Reader r)`,
    '        {',
    `            ${cls} message = new ${cls}();`,
    ...readFields(def.fields, 'message', '            '),
    '            return message;',
    '        }',
  ];
}

function readMessage(): string[] {
  const out = [
    '        /// <summary>The fields of a message whose type and sender were checked (FromValue).</summary>',
    '        private static Message ReadMessage(string type, Reader r)',
    '        {',
  ];
  out.push('            switch (type)', '            {');
  for (const type of Object.keys(MESSAGES)) out.push(`                case ${csString(type)}: return Read${messageClass(type)}(r);`);
  out.push('                default: throw new ProtocolException("unknown-type", "unknown message type \\"" + type + "\\"");', '            }', '        }');
  return out;
}

function sendersOf(messages: Readonly<Record<string, MessageDef>>): string[] {
  const out = [
    '        /// <summary>Which side may send a type; null for unknown types.</summary>',
    '        public static Side[] SendersOf(string type)',
    '        {',
  ];
  out.push('            switch (type)', '            {');
  for (const [type, def] of Object.entries(messages))
    out.push(`                case ${csString(type)}: return new[] { ${def.senders.map((s) => `Side.${pascal(s)}`).join(', ')} };`);
  out.push('                default: return null;', '            }', '        }');
  return out;
}

// ---------------------------------------------------------------------------------------------

/** The whole of Messages.cs for a set of message definitions. */
export function generateMessagesCs(messages: Readonly<Record<string, MessageDef>> = MESSAGES): string {
  const named: Named = { structs: [], unions: [], lists: new Map() };
  for (const def of Object.values(messages)) collect(def.fields, named);
  const blocks: string[][] = [
    ['    /// <summary>Who sends a message.</summary>', '    public enum Side { Engine, Orchestrator }'],
    ['    public abstract class Message', '    {', '        public abstract string Type { get; }', '    }'],
    ...named.structs.map(declareStruct),
    ...named.unions.map(declareUnion),
    ...Object.entries(messages).map(([type, def]) => declareMessage(type, def)),
  ];
  const codec: string[][] = [
    [...named.lists].map(([name, values]) => `        public static readonly string[] ${name} = { ${values.map(csString).join(', ')} };`),
    sendersOf(messages),
    toValue(),
    ...named.structs.map(structWriter),
    ...named.unions.map(unionWriter),
    ...Object.entries(messages).map(([type, def]) => messageWriter(type, def)),
    readMessage(),
    ...named.structs.map(structReader),
    ...named.unions.map(unionReader),
    ...Object.entries(messages).map(([type, def]) => messageReader(type, def)),
  ];
  blocks.push([
    '    public static partial class Protocol',
    '    {',
    ...codec
      .map((b) => b.join('\n'))
      .join('\n\n')
      .split('\n'),
    '    }',
  ]);
  const body = blocks.map((b) => b.join('\n')).join('\n\n');
  return `${HEADER}\n\nusing System;\nusing System.Collections.Generic;\n\nnamespace Sbeval.Bridge\n{\n${body}\n}\n`;
}

/** The first line where two texts differ, as "line N: expected … / found …", or undefined when equal. */
export function firstDifference(expected: string, actual: string): string | undefined {
  if (expected === actual) return undefined;
  const a = expected.split('\n');
  const b = actual.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    if (a[i] !== b[i]) return `line ${i + 1}: generated ${JSON.stringify(a[i] ?? '(end of file)')}, checked in ${JSON.stringify(b[i] ?? '(end of file)')}`;
  }
  return 'the files differ in line endings';
}

/** Each generated file with what it should hold. */
function outputs(): Array<{ path: string; name: string; text: string }> {
  return [
    { path: MESSAGES_CS, name: 'unity-plugin/Runtime/Messages.cs', text: generateMessagesCs() },
    { path: SAMPLES_CS, name: 'unity-plugin/Tests/Samples.cs', text: generateSamplesCs(sampleMessages()) },
  ];
}

function main(): void {
  const check = process.argv.includes('--check');
  for (const { path, name, text } of outputs()) {
    if (check) {
      const difference = firstDifference(text, readFileSync(path, 'utf8'));
      if (difference === undefined) continue;
      process.stderr.write(`${name} is not what its source generates (${difference}); run npm run protocol:cs\n`);
      process.exitCode = 1;
    } else {
      writeFileSync(`${path}.tmp`, text);
      renameSync(`${path}.tmp`, path);
      process.stdout.write(`wrote ${name}\n`);
    }
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
