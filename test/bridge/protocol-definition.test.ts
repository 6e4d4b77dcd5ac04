import { readFileSync } from 'node:fs';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { lengthProblem, messageSchema } from '../../bridge/message-validators.js';
import { type Fields, MESSAGES, type MessageDef } from '../../bridge/messages.js';
import { decodeMessage, encodeMessage, toWire } from '../../bridge/protocol.js';
import { firstDifference, generateMessagesCs, MESSAGES_CS, SAMPLES_CS } from '../../scripts/protocol-cs.js';
import { generateSamplesCs } from '../../scripts/protocol-samples-cs.js';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { sampleMessages } from './samples.js';

/**
 * The protocol's one definition (bridge/messages.ts) against what is built from it: the checked-in C#
 * is exactly what it generates, the TypeScript validators follow it, and a field added on one side
 * only — to the definition, or by hand to the C# — fails.
 */

/** The definition with one field added to (or removed from) one message. */
function planted(type: keyof typeof MESSAGES, change: (fields: Fields) => Fields): Record<string, MessageDef> {
  const copy: Record<string, MessageDef> = { ...MESSAGES };
  const def = MESSAGES[type];
  copy[type] = { senders: def.senders, fields: change(def.fields) };
  return copy;
}

const checkedIn = readFileSync(MESSAGES_CS, 'utf8');

describe('the C# messages are generated from the definition', () => {
  it('the checked-in Messages.cs is what the definition generates, with the generated header', () => {
    expect(firstDifference(generateMessagesCs(), checkedIn)).toBeUndefined();
    expect(checkedIn.split('\n')[0]).toMatch(/^\/\/ GENERATED from bridge\/messages\.ts by `npm run protocol:cs`: do not edit/);
    // Every message type is a C# class, every field of it a member.
    for (const [type, def] of Object.entries(MESSAGES)) {
      const cls = `${type.charAt(0).toUpperCase()}${type.slice(1)}Message`;
      const body = new RegExp(`public sealed class ${cls} : Message\\n    \\{\\n([\\s\\S]*?)\\n    \\}`).exec(checkedIn)?.[1] ?? '';
      expect(body, cls).toContain(`return "${type}";`);
      expect(body.match(/^ {8}public (?!override)\S+ \w+/gm)?.length, cls).toBe(Object.keys(def.fields).length);
    }
  });

  it('a field added to the definition only fails: the C# is no longer what it generates', () => {
    const withField = generateMessagesCs(planted('ping', (f) => ({ ...f, sentAt: { type: { kind: 'int', min: 0 } } })));
    const difference = firstDifference(withField, checkedIn);
    expect(difference).toMatch(/generated " {8}public long SentAt;"/);
    // The generated encoder and decoder carry it too.
    expect(withField).toContain('map.Set("sentAt", MsgValue.Of(message.SentAt));');
    expect(withField).toContain('message.SentAt = r.Int("sentAt", 0, long.MaxValue);');
  });

  it('a field added to the C# by hand only fails', () => {
    const edited = checkedIn.replace('        public long Nonce;\n', '        public long Nonce;\n        public long SentAt;\n');
    expect(edited).not.toBe(checkedIn);
    expect(firstDifference(generateMessagesCs(), edited)).toMatch(/checked in " {8}public long SentAt;"/);
  });

  it("the mono tests' samples are generated from the TypeScript ones", () => {
    const samplesCs = readFileSync(SAMPLES_CS, 'utf8');
    expect(firstDifference(generateSamplesCs(sampleMessages()), samplesCs)).toBeUndefined();
    expect(samplesCs.match(/^ {16}new \w+Message \{/gm)).toHaveLength(sampleMessages().length);
    // A sample changed on the TypeScript side only fails.
    const changed = sampleMessages().map((m) => (m.type === 'ping' ? { ...m, nonce: 3 } : m));
    expect(firstDifference(generateSamplesCs(changed), samplesCs)).toMatch(/generated "\s+new PingMessage \{ Nonce = 3 \},"/);
  });

  it('npm run protocol:cs -- --check passes on the checkout', async () => {
    const result = await execa('npx', ['tsx', 'scripts/protocol-cs.ts', '--check'], { cwd: PROJECT_ROOT, reject: false, all: true });
    expect(result.exitCode, result.all).toBe(0);
  }, 60_000);
});

describe('the TypeScript validators follow the definition', () => {
  it('every field of the definition is written by the TypeScript encoder for some sample, and nothing else is', () => {
    const seen = new Map<string, Set<string>>();
    for (const m of sampleMessages()) {
      const keys = Object.keys(toWire(m)).filter((k) => k !== 'type');
      const defined = Object.keys(MESSAGES[m.type].fields);
      expect(
        keys.filter((k) => !defined.includes(k)),
        `${m.type}: written but not defined`,
      ).toEqual([]);
      const set = seen.get(m.type) ?? new Set<string>();
      for (const k of keys) set.add(k);
      seen.set(m.type, set);
    }
    for (const [type, def] of Object.entries(MESSAGES)) expect([...(seen.get(type) ?? [])].sort(), type).toEqual(Object.keys(def.fields).sort());
  });

  it('a field added to the definition only fails: its validator refuses what the encoder writes, naming the field', () => {
    const schema = messageSchema('ping', planted('ping', (f) => ({ ...f, sentAt: { type: { kind: 'int', min: 0 } } })).ping as MessageDef);
    const result = schema.safeParse(toWire({ type: 'ping', nonce: 7 }));
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toEqual(['sentAt']);
  });

  it('a field the encoder writes but the definition lacks does not survive decoding', () => {
    const sample = sampleMessages().find((m) => m.type === 'error' && m.hint !== undefined);
    const withoutHint = planted('error', ({ hint: _hint, ...rest }) => rest).error as MessageDef;
    const parsed = messageSchema('error', withoutHint).parse(toWire(sample!));
    expect(parsed).not.toHaveProperty('hint');
    expect(decodeMessage(encodeMessage(sample!), { from: undefined })).toEqual(sample);
  });

  it('checks the byte lengths the definition ties to other fields', () => {
    const wire = { stepCount: 2, bodyCount: 3, states: new Uint8Array(2 * 3 * 24), alive: new Uint8Array(5) };
    expect(lengthProblem(MESSAGES.frames, wire)).toBe('alive has 5 bytes, expected 6 (2 stepCount × 3 bodyCount)');
    expect(lengthProblem(MESSAGES.frames, { ...wire, alive: new Uint8Array(6) })).toBeUndefined();
  });
});
