// exec probe: the command runs in the container through the engine's exec API (so the image needs nothing of
// runpod's); exit code 0 is success (pkg/probe/exec). timeoutSeconds is enforced as Kubernetes does since 1.20
// (ExecProbeTimeout): past it the probe has failed. The Docker API cannot kill an exec, so the process is
// abandoned, still running, and its result ignored (design.md).
import { type ProbeContext, limitOutput } from './context.js';
import { type ExecHandler, type ProbeOutcome, maxProbeOutput } from '../../kube/probes.js';

export async function execProbe(h: ExecHandler, ctx: ProbeContext): Promise<ProbeOutcome> {
  try {
    const r = await ctx.engine.execCapture(ctx.containerId, h.command, ctx.timeoutMs);
    const output = limitOutput(r.output, maxProbeOutput).trimEnd();
    if (r.timedOut) return { ok: false, output: `command timed out after ${ctx.timeoutMs / 1000}s${output ? `: ${output}` : ''}` };
    if (r.exitCode === 0) return { ok: true, output };
    return { ok: false, output: `command exited with code ${r.exitCode ?? 'unknown'}${output ? `: ${output}` : ''}` };
  } catch (err) {
    return { ok: false, output: `exec failed: ${err instanceof Error ? err.message : String(err)}` };
  }
}
