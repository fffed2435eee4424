// The one error of kustomize rendering: a kustomization (or a file it names) that runpod cannot render, refused
// before anything runs. It points at the kustomization file, the line and the field, as validate's problems do,
// and says what to do instead. Exit 2, like any invalid input (design.md).

import { formatProblem, ManifestError } from '../../errors.js';
import type { Origin } from './resource.js';

export class KustomizeError extends ManifestError {
  override name = 'KustomizeError';
  constructor(
    readonly origin: Origin,
    readonly field: string,
    readonly reason: string,
    readonly fix?: string,
  ) {
    super([
      {
        file: origin.file,
        ...(origin.line !== undefined ? { line: origin.line } : {}),
        path: field,
        message: fix !== undefined && fix !== '' ? `${reason}; ${fix}` : reason,
      },
    ]);
    // The same one-line form as validate's problems, named for what was refused.
    this.message = `invalid kustomization: ${formatProblem(this.problems[0]!)}`;
  }
}
