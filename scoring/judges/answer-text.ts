/**
 * Judges' answers before parsing. Reasoning models (deepseek-r1, qwen3 …) served by Ollama put their
 * chain of thought in `<think>…</think>` ahead of the answer; a thought may well quote the required
 * tags or an ordering it later revises, so it is removed first. An unclosed `<think>` (the answer was
 * cut inside the thought) leaves nothing to parse.
 */
export function stripThinking(text: string): string {
  let out = text.replace(/<think>[\s\S]*?<\/think>/gi, '');
  const open = out.search(/<think>/i);
  if (open >= 0) out = out.slice(0, open);
  return out;
}

/** A raw answer kept in a failure record: whole up to `max` characters, else head and tail. */
export function keepRaw(text: string, max = 20_000): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters cut …]\n${text.slice(-half)}`;
}
