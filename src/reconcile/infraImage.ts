// Make runpod's built-in infra image available on the engine, with no registry: import it once, reuse it.
import type { ImagePort } from '../engine/ports/images.js';
import { pauseArch, pauseImageChanges, pauseImageRef, pauseRootfsTar } from './pauseImage.js';

/**
 * The ref of runpod's pause image for the engine's architecture (Go or uname name), imported if missing.
 * Throws for architectures without a built-in program, telling the user to pass --infra-image.
 *
 * Two runpods may both find it missing and both import: harmless, the tag names the content, so the
 * second import only moves the tag to an identical image.
 * Only the two image calls are needed, so any image port (or a test's stand-in for one) will do.
 */
export async function ensureInfraImage(engine: Pick<ImagePort, 'inspectImage' | 'importImage'>, arch: string, present?: Promise<boolean>): Promise<string> {
  const a = pauseArch(arch);
  const ref = pauseImageRef(a);
  if (await (present ?? infraImagePresent(engine, arch))) return ref;
  try {
    await engine.importImage(pauseRootfsTar(a), ref, pauseImageChanges());
  } catch (err) {
    // Should a concurrent import make ours fail, theirs is as good as ours.
    if (await engine.inspectImage(ref).catch(() => undefined)) return ref;
    throw err;
  }
  return ref;
}

/**
 * Whether runpod's pause image for the architecture is on the engine: a read only, so a run asks it beside the
 * engine's facts and hands the answer to ensureInfraImage, which imports (makes) only after the engine's support
 * was checked. Rejects as ensureInfraImage would for an architecture without a built-in program.
 */
export async function infraImagePresent(engine: Pick<ImagePort, 'inspectImage'>, arch: string): Promise<boolean> {
  return (await engine.inspectImage(pauseImageRef(pauseArch(arch)))) !== undefined;
}
