import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { networkInterfaces } from 'node:os';

/**
 * Another machine, as far as the network goes: a network namespace joined to this one by a veth pair
 * (`ip netns`, iproute2; needs CAP_NET_ADMIN). `hostIp` is this side's address, `nsIp` the other's,
 * and `prefix` runs a program inside the namespace. Where namespaces cannot be made, the other side
 * is this machine's own non-loopback address (`local-address`), else loopback; callers print the
 * variant that ran. `cleanup` removes what was made.
 */
export interface OtherSide {
  variant: 'netns' | 'local-address' | 'loopback';
  /** The address a server on this side listens on and the other side dials. */
  hostIp: string;
  /** The address the other side's connections come from. */
  nsIp: string;
  prefix: string[];
  cleanup(): void;
}

export function otherSide(subnet: number): OtherSide {
  const tag = randomBytes(3).toString('hex');
  const octet = 16 + (parseInt(tag.slice(0, 2), 16) % 200);
  const namespace = `sbeval-${tag}`;
  const hostIp = `10.${subnet}.${octet}.1`;
  const nsIp = `10.${subnet}.${octet}.2`;
  const undo: Array<() => void> = [];
  const cleanup = () => {
    for (const step of undo.splice(0).reverse()) {
      try {
        step();
      } catch {
        // best effort
      }
    }
  };
  try {
    const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });
    ip('netns', 'add', namespace);
    undo.push(() => ip('netns', 'del', namespace));
    ip('link', 'add', `sbv${tag}h`, 'type', 'veth', 'peer', 'name', `sbv${tag}n`);
    undo.push(() => ip('link', 'del', `sbv${tag}h`));
    ip('link', 'set', `sbv${tag}n`, 'netns', namespace);
    ip('addr', 'add', `${hostIp}/24`, 'dev', `sbv${tag}h`);
    ip('link', 'set', `sbv${tag}h`, 'up');
    ip('netns', 'exec', namespace, 'ip', 'addr', 'add', `${nsIp}/24`, 'dev', `sbv${tag}n`);
    ip('netns', 'exec', namespace, 'ip', 'link', 'set', `sbv${tag}n`, 'up');
    ip('netns', 'exec', namespace, 'ip', 'link', 'set', 'lo', 'up');
    return { variant: 'netns', hostIp, nsIp, prefix: ['ip', 'netns', 'exec', namespace], cleanup };
  } catch {
    cleanup();
    const own = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && !a.internal && a.family === 'IPv4');
    const address = own?.address ?? '127.0.0.1';
    return { variant: own ? 'local-address' : 'loopback', hostIp: address, nsIp: address, prefix: [], cleanup };
  }
}
