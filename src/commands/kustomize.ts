// runpod kustomize DIR: the objects a kustomization renders to, printed as `kubectl kustomize DIR` prints them.
// Its purpose is to show the rendering, so generated Secrets are printed as kustomize prints them (base64, not
// redacted), the one place runpod shows a Secret's data. No engine is asked.
import { ExitCode } from '../errors.js';
import { renderToText } from '../input/kustomize/input.js';
import type { CommandContext } from './context.js';

export interface KustomizeOptions {
  dir: string;
}

export async function kustomizeCommand(o: KustomizeOptions, ctx: CommandContext): Promise<number> {
  ctx.stdout.write(renderToText(o.dir));
  return ExitCode.ok;
}
