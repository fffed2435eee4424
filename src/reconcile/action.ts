// The actions a sync carries out on the engine (decide.ts chooses them, apply.ts performs them), each with its
// reason, and how each reads to a user. Pure.

import type { ResourceUpdate } from '../engine/ports/containers.js';

export interface RemoveAction {
  kind: 'remove';
  container: string;
  id: string;
  reason: string;
}

export interface CreateInfraAction {
  kind: 'createInfra';
  attempt: number;
  reason: string;
}

export interface StartInfraAction {
  kind: 'startInfra';
  id: string;
  reason: string;
}

export interface CreateAction {
  kind: 'create';
  container: string;
  attempt: number;
  reason: string;
}

export interface StartAction {
  kind: 'start';
  container: string;
  id: string;
  reason: string;
}

export interface RetireAction {
  kind: 'retire';
  container: string;
  id: string;
  reason: string;
}

export interface KillAction {
  kind: 'kill';
  container: string;
  id: string;
  gracePeriodSeconds: number;
  reason: string;
}

export interface ResizeAction {
  kind: 'resize';
  container: string;
  id: string;
  update: ResourceUpdate;
  reason: string;
}

export type Action =
  /** Stop (within the grace period) and remove an instance. */
  | RemoveAction
  /** Create and start a new infra instance. */
  | CreateInfraAction
  | StartInfraAction
  /** Create and start a new instance of an app container. */
  | CreateAction
  | StartAction
  /** Keep a dead instance for `logs --previous`, but make sure the engine never restarts it. */
  | RetireAction
  /** End the instance's process after a failed liveness or startup probe; its restart policy decides what follows. */
  | KillAction
  /** Apply changed resources to the instance in place (resizePolicy NotRequired: `docker update`). */
  | ResizeAction;

/** What an action does, in a few words (a spinner's text, a result's line). */
export function actionHeadline(a: Action): string {
  switch (a.kind) {
    case 'remove':
      return `removing ${a.container === 'POD' ? 'infra container' : `container ${a.container}`}`;
    case 'createInfra':
      return `creating infra container, attempt ${a.attempt}`;
    case 'startInfra':
      return 'starting infra container';
    case 'create':
      return `creating container ${a.container}, attempt ${a.attempt}`;
    case 'start':
      return `starting container ${a.container}`;
    case 'kill':
      return `killing container ${a.container} to restart it`;
    case 'retire':
      return `keeping ${a.container}'s dead instance without a restart policy`;
    case 'resize':
      return `updating container ${a.container}'s resources in place`;
  }
}

/** The line a user reads for an action: what is done, and why. */
export function describeAction(a: Action): string {
  return `${actionHeadline(a)} (${a.reason})`;
}
