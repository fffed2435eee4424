// Names of a workload's pods, as its controller would give them, but stable: a cluster draws a pod's random suffix
// once and keeps the pod; runpod has no store to keep it in, so each suffix is derived from what identifies the pod
// (its ReplicaSet and replica index), and re-running the manifest names the same pods. Pure.
import { nodeCrypto } from '../lazyBuiltins.js';
import { specHash } from '../kube/names.js';

/**
 * The characters Kubernetes uses for generated names and template hashes (apimachinery util/rand: no vowels, no
 * digits that read like letters, so no word or look-alike is ever spelled).
 */
const alphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** Characters of alphabet drawn from the bytes of a SHA-256 digest of seed. */
function encode(seed: string, length: number): string {
  const digest = nodeCrypto().createHash('sha256').update(seed).digest();
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[digest[i]! % alphabet.length];
  return out;
}

/**
 * The pod-template-hash of a Deployment's template: a cluster hashes the template (FNV-32a) and writes the decimal
 * digits of the sum in the alphabet above, up to 10 characters. Here the template's canonical JSON digest stands
 * in for the FNV sum (the same template always gives the same hash; the values differ from a cluster's).
 */
export function podTemplateHash(template: unknown): string {
  const sum = parseInt(specHash(template).slice(0, 8), 16);
  return [...String(sum)].map((d) => alphabet[d.charCodeAt(0) % alphabet.length]).join('');
}

/** The 5-character suffix of a generated pod name (a cluster's is random): derived from the owner and index. */
export function podSuffix(owner: string, index: number): string {
  return encode(`${owner}#${index}`, 5);
}

/** <deployment>-<pod-template-hash>: the ReplicaSet a Deployment's template change makes. */
export function replicaSetName(deployment: string, hash: string): string {
  return `${deployment}-${hash}`;
}

/** <owner>-<suffix>: a ReplicaSet's (or ReplicationController's, or DaemonSet's) pod. */
export function generatedPodName(owner: string, index: number): string {
  return `${owner}-${podSuffix(owner, index)}`;
}

/** <statefulset>-<ordinal>. */
export function ordinalPodName(statefulSet: string, ordinal: number): string {
  return `${statefulSet}-${ordinal}`;
}

/** <claim template>-<statefulset>-<ordinal>: a StatefulSet pod's own claim. */
export function claimName(template: string, statefulSet: string, ordinal: number): string {
  return `${template}-${statefulSet}-${ordinal}`;
}
