import { readdirSync, readFileSync } from 'node:fs';

/**
 * The processes below a pid (Linux /proc), with their command lines: the tests kill engine processes a
 * run started, the way an operator or the OOM killer would.
 */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  cmdline: string;
}

function processInfo(pid: number): ProcessInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 4 (ppid) follows the command name in parentheses, which may itself contain spaces.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    return { pid, ppid, cmdline };
  } catch {
    return undefined; // gone meanwhile
  }
}

export function descendants(root: number): ProcessInfo[] {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => processInfo(Number(name)))
    .filter((p): p is ProcessInfo => p !== undefined);
  const children = new Map<number, ProcessInfo[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const out: ProcessInfo[] = [];
  const stack = [root];
  while (stack.length > 0) {
    for (const child of children.get(stack.pop() as number) ?? []) {
      out.push(child);
      stack.push(child.pid);
    }
  }
  return out;
}
