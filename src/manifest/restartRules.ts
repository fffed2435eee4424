// The API server's rules for a regular container's restartPolicy and restartPolicyRules (Kubernetes 1.34,
// ContainerRestartRules, KEP-5307; the Container API reference: "Constraints on the rules: At most 20 rules are
// allowed … When rules are specified, container MUST set RestartPolicy explicitly even if it matches the Pod's
// RestartPolicy"; ContainerRestartRule: action "Restart" is the only value, exitCodes the condition, its operator In
// or NotIn, "At most 255 elements are allowed" in values). The OpenAPI schema runpod validates types against is
// Kubernetes 1.33's, which has no restartPolicyRules, so the types inside it are checked here too.
import { describe } from '../kube/object.js';
import type { PathSegment } from '../kube/path.js';
import type { ProblemAdder } from './ruleHelpers.js';
import { newerThanSchema } from './fields.js';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export const maxRestartRules = 20;
export const maxRestartRuleValues = 255;
const containerPolicies = ['Always', 'OnFailure', 'Never'];

/**
 * A regular (app) container's restartPolicy and restartPolicyRules; or (init) a regular init container's rules, whose
 * restartPolicy the caller has checked (Always there makes a sidecar, which takes no rules).
 */
export function containerRestartRules(c: Obj, p: PathSegment[], sink: ProblemAdder, init = false): void {
  const policy = c.restartPolicy;
  const hasPolicy = policy !== undefined && policy !== null;
  if (!init && hasPolicy && !containerPolicies.includes(policy as string)) {
    sink.add([...p, 'restartPolicy'], `must be Always, OnFailure or Never (it overrides the pod's restartPolicy for this container), got ${describe(policy)}`);
  }
  const rules = c.restartPolicyRules;
  if (rules === undefined || rules === null) return;
  const at = [...p, 'restartPolicyRules'];
  if (!Array.isArray(rules)) {
    sink.add(at, `expected a list of rules ({action: Restart, exitCodes: {operator: In or NotIn, values: [exit codes]}}), got ${describe(rules)}`);
    return;
  }
  if (rules.length > 0 && !hasPolicy)
    sink.add(
      [...p, 'restartPolicy'],
      `required when restartPolicyRules is set: the ${init ? 'init container' : 'container'} must set its own restartPolicy (${init ? 'OnFailure or Never' : 'Always, OnFailure or Never'}), even if it is the pod's`,
    );
  if (rules.length > maxRestartRules) sink.add(at, `must have at most ${maxRestartRules} rules, got ${rules.length}`);
  rules.forEach((rule, i) => restartRule(rule, [...at, i], sink));
}

function restartRule(rule: unknown, at: PathSegment[], sink: ProblemAdder): void {
  if (!isObj(rule)) {
    sink.add(at, `expected a mapping ({action: Restart, exitCodes: …}), got ${describe(rule)}`);
    return;
  }
  const action = rule.action;
  if (action === undefined || action === null || action === '') sink.add([...at, 'action'], 'required: Restart');
  // RestartAllContainers (Kubernetes 1.35, RestartAllContainersOnContainerExits, alpha, KEP-5532) restarts every
  // container of the pod in place, init containers first, when the rule matches.
  else if (action === 'RestartAllContainers')
    sink.add(
      [...at, 'action'],
      `RestartAllContainers is ${newerThanSchema('1.35')} (it restarts every container of the pod in place): runpod does not support it yet; Restart is the action of Kubernetes 1.34`,
    );
  else if (action !== 'Restart') sink.add([...at, 'action'], `must be Restart (the only action Kubernetes 1.34 has), got ${describe(action)}`);
  const codes = rule.exitCodes;
  if (codes === undefined || codes === null) {
    sink.add([...at, 'exitCodes'], 'required: {operator: In or NotIn, values: [exit codes]}');
    return;
  }
  if (!isObj(codes)) {
    sink.add([...at, 'exitCodes'], `expected a mapping {operator: In or NotIn, values: [exit codes]}, got ${describe(codes)}`);
    return;
  }
  const operator = codes.operator;
  if (operator === undefined || operator === null || operator === '') sink.add([...at, 'exitCodes', 'operator'], 'required: In or NotIn');
  else if (operator !== 'In' && operator !== 'NotIn') sink.add([...at, 'exitCodes', 'operator'], `must be In or NotIn, got ${describe(operator)}`);
  const values = codes.values;
  if (values === undefined || values === null) return;
  if (!Array.isArray(values)) {
    sink.add([...at, 'exitCodes', 'values'], `expected a list of exit codes (integers), got ${describe(values)}`);
    return;
  }
  if (values.length > maxRestartRuleValues) sink.add([...at, 'exitCodes', 'values'], `must have at most ${maxRestartRuleValues} values, got ${values.length}`);
  values.forEach((v, j) => {
    // int32 in the API.
    if (typeof v !== 'number' || !Number.isInteger(v) || v < -2147483648 || v > 2147483647)
      sink.add([...at, 'exitCodes', 'values', j], `expected an exit code (an integer), got ${describe(v)}`);
  });
}
