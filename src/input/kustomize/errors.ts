// A problem in a kustomization: which file (and line), which field, what is wrong and what to do instead.
// Bad input exits 2 (design.md), nothing is run.

import { ExitCode, RunpodError } from '../../errors.js';
import type { Origin } from './resource.js';

export class KustomizeError extends RunpodError {
  readonly exitCode = ExitCode.usage;
  override name = 'KustomizeError';
  constructor(
    readonly origin: Origin,
    readonly field: string,
    readonly problem: string,
    readonly fix?: string,
  ) {
    const where = origin.line !== undefined ? `${origin.file}:${origin.line}` : origin.file;
    super(`invalid kustomization: ${where}${field ? ` ${field}` : ''}: ${problem}${fix ? ` (${fix})` : ''}`);
  }
}
