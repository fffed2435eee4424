// Whether an exit of a container is followed by a restart: the one answer that decide (which makes the next
// attempt when the engine will not), the wait checks (which call an exit final) and the engine restart policy
// share. Pure.
//
// Kubernetes (Pod lifecycle, "Container restart policy" and "Container restart rules", 1.34, KEP-5307): a
// container's own restartPolicy (Always, OnFailure, Never), when set, overrides the pod's for that container; its
// restartPolicyRules are evaluated in order on each exit, the first whose exitCodes match decides (its action,
// Restart, restarts it), and when none matches the container's restartPolicy decides. Always restarts every exit,
// OnFailure a non-zero one, Never none.
import type { Container } from 'kubernetes-types/core/v1.js';

export type RestartPolicy = 'Always' | 'OnFailure' | 'Never';

/** One restartPolicyRules entry, as validation left it: action Restart on exit codes In or NotIn the values. */
export interface RestartRule {
  operator: 'In' | 'NotIn';
  values: readonly number[];
}

/** How one container is restarted: its effective policy and its rules (none unless it sets restartPolicyRules). */
export interface ContainerRestart {
  policy: RestartPolicy;
  rules: readonly RestartRule[];
}

/** What a policy alone says of an exit code (Docker's no / on-failure / always say the same). */
export function policyRestarts(policy: RestartPolicy, exitCode: number): boolean {
  if (policy === 'Always') return true;
  if (policy === 'OnFailure') return exitCode !== 0;
  return false;
}

/** The first rule that matches the exit code, if any (the rules are evaluated in order). */
export function matchingRule(rules: readonly RestartRule[], exitCode: number): RestartRule | undefined {
  return rules.find((r) => (r.operator === 'In' ? r.values.includes(exitCode) : !r.values.includes(exitCode)));
}

/** Is this exit of the container followed by a restart (by the engine, or by runpod while it watches)? */
export function restartsAfterExit(r: ContainerRestart, exitCode: number): boolean {
  // The only action is Restart, so a matching rule restarts; no match leaves it to the container's policy.
  if (matchingRule(r.rules, exitCode) !== undefined) return true;
  return policyRestarts(r.policy, exitCode);
}

/** A container's restart: its own restartPolicy over the pod's, and its rules. */
export function containerRestart(c: Pick<Container, 'restartPolicy'> & { restartPolicyRules?: unknown }, podPolicy: RestartPolicy): ContainerRestart {
  const own = c.restartPolicy;
  const policy: RestartPolicy = own === 'Always' || own === 'OnFailure' || own === 'Never' ? own : podPolicy;
  return { policy, rules: rulesOf(c.restartPolicyRules) };
}

/**
 * An init container that is not a sidecar runs to completion: exit 0 is final (it is done and the next one starts,
 * whatever its rules say), and a failure is run again unless the pod's restartPolicy is Never (Kubernetes: "If a
 * Pod's init container fails, the kubelet repeatedly restarts that init container until it succeeds. However, if the
 * Pod has a restartPolicy of Never … the overall Pod as failed"), which is OnFailure or Never.
 *
 * Its own restartPolicy (OnFailure or Never; Always makes it a sidecar) and restartPolicyRules override that
 * (Kubernetes 1.34, ContainerRestartRules: "Container restart policy and rules applies to app containers in the Pod
 * and to regular init containers"; KEP-5307: "if the container exited with a code specified in the
 * restartPolicyRules, the container will be restarted by kubelet, until it succeeds (exit=0) or fails (exited with a
 * code not in the restartPolicyRules)"). So an init container with restartPolicy Never fails the pod on its first
 * failure even under the pod's Always, and one with rules under the pod's Never is run again on the codes they name.
 */
export function initContainerRestart(podPolicy: RestartPolicy, c?: Pick<Container, 'restartPolicy'> & { restartPolicyRules?: unknown }): ContainerRestart {
  const own = c?.restartPolicy;
  if (own === 'OnFailure' || own === 'Never') return { policy: own, rules: rulesOf(c?.restartPolicyRules) };
  return { policy: podPolicy === 'Never' ? 'Never' : 'OnFailure', rules: [] };
}

/** What the rules say, in words: "exit codes in [42]; not in [0, 1]". */
export function describeRules(rules: readonly RestartRule[]): string {
  return rules.map((r) => `exit code ${r.operator === 'In' ? 'in' : 'not in'} [${r.values.join(', ')}]`).join('; ');
}

/** What restarts an exit that is restarted, in a few words: "restartPolicy Always", "restartPolicyRules (…)". */
export function restartCause(r: ContainerRestart, exitCode: number): string {
  const rule = matchingRule(r.rules, exitCode);
  return rule !== undefined ? `restartPolicyRules (${describeRules([rule])})` : `restartPolicy ${r.policy}`;
}

/** Why an exit is or is not followed by a restart, for the line a user reads. */
export function describeRestart(r: ContainerRestart, exitCode: number): string {
  const rule = matchingRule(r.rules, exitCode);
  if (rule !== undefined) return `restartPolicyRules (${describeRules([rule])}) restart it`;
  const rules = r.rules.length > 0 ? ` and no restartPolicyRules entry matches exit code ${exitCode}` : '';
  return `restartPolicy ${r.policy}${rules} ${policyRestarts(r.policy, exitCode) ? 'restarts' : 'will not restart'} it`;
}

function rulesOf(raw: unknown): RestartRule[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((rule): RestartRule[] => {
    if (typeof rule !== 'object' || rule === null) return [];
    const codes = (rule as { exitCodes?: unknown }).exitCodes;
    if (typeof codes !== 'object' || codes === null) return [];
    const { operator, values } = codes as { operator?: unknown; values?: unknown };
    if (operator !== 'In' && operator !== 'NotIn') return [];
    return [{ operator, values: Array.isArray(values) ? values.filter((v): v is number => typeof v === 'number') : [] }];
  });
}
