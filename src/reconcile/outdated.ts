// Is an existing pod of a workload on an older template? Its newest instances' hashes against the plan's (pure):
// a pod merely stopped or crashed is not outdated (the run-once loop repairs it in place), a changed spec is. Changed
// resources too, whatever the resizePolicy: a workload's controller rolls a changed template out as new pods (the
// pod-template hash covers the whole template), it does not resize its pods in place (plan/resize.ts).
import { sameSpec } from '../kube/names.js';
import { resizeChange } from '../plan/resize.js';
import type { PodPlan } from '../plan/types.js';
import type { ObservedPod } from './observe.js';

export function templateOutdated(plan: PodPlan, observed: ObservedPod): boolean {
  const infra = observed.infra[0];
  if (infra && infra.hash !== plan.hash) return true;
  const differs = (wanted: PodPlan['containers'], have: ObservedPod['containers']): boolean =>
    wanted.some((c) => {
      const newest = have.get(c.name)?.[0];
      return newest !== undefined && (!sameSpec(newest.hash, c) || (newest.resources !== undefined && resizeChange(newest.resources, c.resources).kind !== 'none'));
    });
  return differs(plan.containers, observed.containers) || differs(plan.initContainers, observed.initContainers);
}
