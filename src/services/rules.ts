// The forwarding of one Service, as kube-proxy's iptables mode does it (pure): in the network namespace of the
// container that holds the Service's address, each port DNATs to one of its backends, chosen at random with equal
// chances (each rule takes 1/(n-i) of what reaches it, the last all that is left), and the replies return through
// it because the forwarded connection is masqueraded. A port with no backend has no rule: nothing listens there,
// so TCP is refused and UDP answered port-unreachable, never forwarded elsewhere.
// https://kubernetes.io/docs/reference/networking/virtual-ips/#proxy-mode-iptables
import type { PortEndpoints } from './endpoints.js';

export const serviceChain = 'RUNPOD-SERVICE';

/** kube-proxy prints the probability with ten decimals; so does runpod, so rules read alike. */
function probability(remaining: number): string {
  return (1 / remaining).toFixed(10);
}

/**
 * An iptables-restore input that replaces the whole nat table of the Service's own network namespace (nothing else
 * lives there: the container holds only the address), so writing it again is harmless and every write is atomic.
 * affinity: sessionAffinity ClientIP's timeout in seconds, kube-proxy's "recent" match per backend.
 */
export function serviceRules(ports: readonly PortEndpoints[], affinitySeconds?: number): string {
  const lines = ['*nat', ':PREROUTING ACCEPT [0:0]', ':INPUT ACCEPT [0:0]', ':OUTPUT ACCEPT [0:0]', ':POSTROUTING ACCEPT [0:0]', `:${serviceChain} - [0:0]`];
  const backendChains: string[] = [];
  const backendRules: string[] = [];
  const rules: string[] = [];
  ports.forEach((pe, pi) => {
    const proto = pe.port.protocol.toLowerCase();
    const match = `-p ${proto} -m ${proto} --dport ${pe.port.port}`;
    const n = pe.backends.length;
    pe.backends.forEach((b, bi) => {
      const dnat = `-j DNAT --to-destination ${b.ip}:${b.port}`;
      if (affinitySeconds === undefined) {
        rules.push(`-A ${serviceChain} ${match}${bi < n - 1 ? ` -m statistic --mode random --probability ${probability(n - bi)}` : ''} ${dnat}`);
        return;
      }
      // ClientIP: a client seen within the timeout goes back to the backend it had (kube-proxy's KUBE-SEP chains).
      const chain = `RUNPOD-EP-${pi}-${bi}`;
      const name = `rp-${pi}-${bi}`;
      backendChains.push(`:${chain} - [0:0]`);
      // DNAT to an address with a port needs the protocol matched in the same rule.
      backendRules.push(`-A ${chain} -p ${proto} -m recent --name ${name} --set --rsource ${dnat}`);
      rules.unshift(`-A ${serviceChain} ${match} -m recent --name ${name} --rcheck --seconds ${affinitySeconds} --reap --rsource -j ${chain}`);
      rules.push(`-A ${serviceChain} ${match}${bi < n - 1 ? ` -m statistic --mode random --probability ${probability(n - bi)}` : ''} -j ${chain}`);
    });
  });
  lines.push(...backendChains, `-A PREROUTING -j ${serviceChain}`, '-A POSTROUTING -m conntrack --ctstate DNAT -j MASQUERADE', ...rules, ...backendRules, 'COMMIT', '');
  return lines.join('\n');
}
