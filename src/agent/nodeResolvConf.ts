// The node's resolv.conf for dnsPolicy Default and ClusterFirst's search list (plan/dns.ts): read from this machine when
// the engine runs on it, and only when a pod's resolver draws on the node's; added to the engine's facts, which engineSupport.ts checks and the plan reads.
import { readFile } from 'node:fs/promises';
import type { EngineFacts } from '../engine/ports/facts.js';
import type { LoadedPod } from '../manifest/types.js';
import { chooseNodeResolvConf, etcResolvConf, readsNodeResolvConf, systemdResolvConf } from '../plan/dns.js';

export type ReadText = (file: string) => Promise<string>;

const readText: ReadText = (file) => readFile(file, 'utf8');

/**
 * The facts with resolvConf: the host's file when the engine is local (a unix socket on Linux: a socket elsewhere is
 * a virtual machine's engine, whose host is not this one), else why it is not known. Unchanged when no pod's draws on the node's (dnsPolicy None only).
 */
export async function withNodeResolvConf(
  facts: EngineFacts,
  pods: readonly LoadedPod[],
  engine: { isLocal: boolean; address: string },
  read: ReadText = readText,
  platform: string = process.platform,
): Promise<EngineFacts> {
  if (!pods.some((p) => readsNodeResolvConf(p.pod.spec))) return facts;
  if (!engine.isLocal || platform !== 'linux') return { ...facts, resolvConf: { unknown: `the engine at ${engine.address} does not run on this machine` } };
  let failure = '';
  const etc = await read(etcResolvConf).catch((err: NodeJS.ErrnoException) => {
    failure = `cannot read ${etcResolvConf} (${err.code ?? err.message})`;
    return undefined;
  });
  const systemd = await read(systemdResolvConf).catch(() => undefined);
  const chosen = chooseNodeResolvConf(etc, systemd);
  return { ...facts, resolvConf: chosen ?? { unknown: failure } };
}
