/**
 * Every TCP port a process and its descendants listen on, as another user of the machine could
 * find them (`ss -ltp` would list the same): read from Linux's `/proc`. A Unix socket is not a TCP
 * listener, and is not listed.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** Whether this machine has the `/proc` files {@link tcpListeners} reads (Linux). */
export function canListTcpListeners(): boolean {
  try {
    readFileSync('/proc/net/tcp', 'utf8');
    return true;
  } catch {
    return false;
  }
}

/** One listening TCP socket: the address to connect to (loopback for a wildcard) and its port. */
export interface TcpListener {
  readonly host: string;
  readonly port: number;
}

/** The TCP sockets in LISTEN state held by `root` or any process under it. */
export function tcpListeners(root: number): TcpListener[] {
  const inodes = new Set(processTree(root).flatMap(socketInodes));
  const listeners: TcpListener[] = [];
  for (const [file, v6] of [
    ['/proc/net/tcp', false],
    ['/proc/net/tcp6', true],
  ] as const) {
    for (const line of readFileSync(file, 'utf8').trim().split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [address, portHex] = fields[1]!.split(':') as [string, string];
      // State 0A is LISTEN; the inode says whose socket it is.
      if (fields[3] !== '0A' || !inodes.has(fields[9]!)) continue;
      listeners.push({ host: v6 && /^0{24}01000000$/.test(address) ? '[::1]' : '127.0.0.1', port: parseInt(portHex, 16) });
    }
  }
  return listeners;
}

/** `root` and every process descended from it. */
function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // `pid (comm) state ppid ...`: comm may hold spaces and parentheses.
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) {
    for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  }
  return tree;
}

/** The inodes of a process's open sockets. */
function socketInodes(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
        return inode ? [inode] : [];
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}
