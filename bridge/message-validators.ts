import { z } from 'zod';
import { type Fields, type FieldType, MESSAGES, type MessageDef, type MessageType } from './messages.js';

/**
 * The zod validators of the bridge messages, built from their definition (bridge/messages.ts) when
 * this module loads; the C# decoders are generated from the same definition.
 */

/** The validator of one field type. */
export function fieldSchema(type: FieldType): z.ZodType {
  switch (type.kind) {
    case 'string': {
      let s = z.string();
      if (type.min !== undefined) s = s.min(type.min);
      if (type.max !== undefined) s = s.max(type.max);
      return s;
    }
    case 'int': {
      let n = z.number().int();
      if (type.min !== undefined) n = n.min(type.min);
      if (type.max !== undefined) n = n.max(type.max);
      return n;
    }
    case 'number': {
      let n = z.number();
      if (type.above !== undefined) n = n.gt(type.above);
      if (type.min !== undefined) n = n.min(type.min);
      return n;
    }
    case 'bool':
      return z.boolean();
    case 'bytes':
      return z.instanceof(Uint8Array);
    case 'enum':
      return z.enum(type.values as [string, ...string[]]);
    case 'map':
      return objectSchema(type.struct.fields);
    case 'list': {
      const items = z.array(fieldSchema(type.of));
      return type.max === undefined ? items : items.max(type.max);
    }
    case 'union': {
      const variants = Object.entries(type.variants).map(([tag, fields]) => z.object({ [type.tag]: z.literal(tag), ...objectShape(fields) }));
      return z.discriminatedUnion(type.tag, variants as unknown as [z.ZodObject, ...z.ZodObject[]]);
    }
  }
}

function objectShape(fields: Fields): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, field] of Object.entries(fields)) {
    const schema = fieldSchema(field.type);
    shape[name] = field.optional ? schema.optional() : schema;
  }
  return shape;
}

/** A map of these fields; unknown fields are dropped (PROTOCOL.md §2: a newer minor may add optional ones). */
export function objectSchema(fields: Fields): z.ZodObject {
  return z.object(objectShape(fields));
}

/** The validator of one message type (its `type` field included). */
export function messageSchema(type: string, def: MessageDef): z.ZodObject {
  return z.object({ type: z.literal(type), ...objectShape(def.fields) });
}

/** Every message type's validator. */
export const MESSAGE_SCHEMAS = Object.fromEntries(Object.entries(MESSAGES).map(([type, def]) => [type, messageSchema(type, def)])) as Record<
  MessageType,
  z.ZodObject
>;

/**
 * The byte fields whose length the message's integer fields fix (`frames`: states and alive), as a
 * complaint naming the field, or undefined when every length is right.
 */
export function lengthProblem(def: MessageDef, wire: Record<string, unknown>): string | undefined {
  for (const [name, field] of Object.entries(def.fields)) {
    if (field.type.kind !== 'bytes' || !field.type.cellsOf) continue;
    const factors = field.type.cellsOf.map((f) => wire[f] as number);
    const perCell = field.type.bytesPerCell ?? 1;
    const expected = factors.reduce((a, b) => a * b, 1) * perCell;
    const actual = (wire[name] as Uint8Array).byteLength;
    if (actual !== expected) {
      const product = [...field.type.cellsOf.map((f, i) => `${factors[i]} ${f}`), ...(perCell === 1 ? [] : [`${perCell} bytes`])].join(' × ');
      return `${name} has ${actual} bytes, expected ${expected} (${product})`;
    }
  }
  return undefined;
}
