// The host port: which engine this is and what its host can do — the address for messages, the version, the
// node's name and capacity, and the engine's facts (facts.ts) the plan checks against.
import type { EngineFacts } from './facts.js';

export interface EngineInfo {
  version: string;
  apiVersion: string;
  /** Engine architecture in Go terms: amd64, arm64 … */
  arch: string;
  os: string;
}

export interface HostInfo {
  name: string;
  cpus: number;
  memoryBytes: number;
}

export interface HostPort {
  /** The address in use, for messages: unix:///var/run/docker.sock, tcp://host:2376 … */
  readonly address: string;
  /** True when the engine runs on this machine (a unix socket): host paths mean the same to both. */
  readonly isLocal: boolean;
  ping(): Promise<EngineInfo>;
  /** The engine host's name and capacity (GET /info): spec.nodeName and a node's allocatable. */
  hostInfo(): Promise<HostInfo>;
  /**
   * What the engine can do (GET /version and GET /info, facts.ts), asked once per engine object: a command opens
   * its engine once, so the plan step sees one answer however many pods it plans.
   */
  facts(): Promise<EngineFacts>;
}
