// One hierarchy of errors, each carrying the exit code design.md assigns to it. main.ts is the only place
// that turns an error into an exit code.

export const ExitCode = {
  ok: 0,
  podFailed: 1,
  usage: 2,
  engine: 3,
  timeout: 124,
  sigint: 130,
  sigterm: 143,
  /**
   * stdout's reader went away (`runpod status | head -1`): 128 + SIGPIPE, what a shell reports for kubectl, docker
   * and coreutils, which SIGPIPE ends there. Node ignores SIGPIPE, so runpod exits with the same code, quietly.
   */
  brokenPipe: 141,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export abstract class RunpodError extends Error {
  abstract readonly exitCode: number;
  private readonly extra: string[] = [];
  /** Lines printed after the one-line summary (the message). */
  detail(): string[] {
    return this.extra;
  }
  /** Add lines to the detail (a failed run's per-container account). */
  withDetail(lines: string[]): this {
    this.extra.push(...lines);
    return this;
  }
}

/**
 * runpod exits with another process's own code: a scoped command's (or 126/127 when it could not be started),
 * or a container's under --exit-code-from. Any code 1-255, which the contract's own codes do not cover.
 */
export class ForwardedExitError extends RunpodError {
  override name = 'ForwardedExitError';
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** A usage error: bad flags or arguments. Nothing on the engine was touched. */
export class UsageError extends RunpodError {
  readonly exitCode = ExitCode.usage;
  override name = 'UsageError';
}

/** One problem in a manifest: where it is, which field, what was expected. */
export interface ManifestProblem {
  file: string;
  /** 1-based line of the field, when known. */
  line?: number;
  /** Field path in kubectl style, e.g. spec.containers[0].image; empty for the whole document. */
  path: string;
  message: string;
}

export function formatProblem(p: ManifestProblem): string {
  const where = p.line !== undefined ? `${p.file}:${p.line}` : p.file;
  return p.path ? `${where} ${p.path}: ${p.message}` : `${where}: ${p.message}`;
}

/** Every problem found in the input, reported at once. Nothing on the engine was touched. */
export class ManifestError extends RunpodError {
  readonly exitCode = ExitCode.usage;
  override name = 'ManifestError';
  constructor(readonly problems: ManifestProblem[]) {
    super(problems.length === 1 ? `invalid manifest: ${formatProblem(problems[0]!)}` : `invalid manifest: ${problems.length} problems`);
  }
  override detail(): string[] {
    return [...(this.problems.length === 1 ? [] : this.problems.map(formatProblem)), ...super.detail()];
  }
}

/** runpod cannot talk to the engine: refused, timed out, API too old. */
export class EngineUnreachableError extends RunpodError {
  readonly exitCode = ExitCode.engine;
  override name = 'EngineUnreachableError';
  constructor(
    readonly address: string,
    readonly reason: string,
  ) {
    super(`cannot reach the Docker engine at ${address}: ${reason}; start dockerd, or point --host / DOCKER_HOST at a running engine`);
  }
}

/** The engine answered a request with an error that is not about the pod's own containers. */
export class EngineError extends RunpodError {
  readonly exitCode = ExitCode.engine;
  override name = 'EngineError';
  constructor(
    readonly address: string,
    message: string,
    readonly statusCode?: number,
  ) {
    super(`Docker engine at ${address}: ${message}`);
  }
}

/** A named pod does not exist (status, logs, exec …). */
export class NotFoundError extends RunpodError {
  readonly exitCode = ExitCode.podFailed;
  override name = 'NotFoundError';
}

/**
 * What the input's Services ask of this host cannot be had here (a nodePort another process holds, a container or
 * network of another owner in the way of a name, no iptables on the engine host): named with the Service or network
 * and what would make it work. A fault of what the input asks of the host, as a hostPort held is a pod's failure:
 * exit 1 (README, exit codes). An engine that misbehaves while runpod makes them (a network made and gone again) is
 * the engine's failure: exit 3, said with `engineFault`.
 */
export class ServiceSetupError extends RunpodError {
  override name = 'ServiceSetupError';
  constructor(
    message: string,
    readonly exitCode: number = ExitCode.podFailed,
  ) {
    super(message);
  }
  /** The engine's own failure while a Service was made (exit 3). */
  static engineFault(message: string): ServiceSetupError {
    return new ServiceSetupError(message, ExitCode.engine);
  }
}

/** One or more pods failed; the per-pod results say why. */
export class PodFailedError extends RunpodError {
  readonly exitCode = ExitCode.podFailed;
  override name = 'PodFailedError';
}

/** --timeout passed before the wait condition held. */
export class DeadlineError extends RunpodError {
  readonly exitCode = ExitCode.timeout;
  override name = 'DeadlineError';
}

/** Interrupted by SIGINT (130) or SIGTERM (143). */
export class InterruptedError extends RunpodError {
  readonly exitCode: number;
  override name = 'InterruptedError';
  constructor(readonly signal: 'SIGINT' | 'SIGTERM') {
    super(`interrupted by ${signal}`);
    this.exitCode = signal === 'SIGINT' ? ExitCode.sigint : ExitCode.sigterm;
  }
}
