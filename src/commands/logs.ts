// runpod logs: a container's output as the engine kept it, stdout to stdout and stderr to stderr (frames
// demultiplexed across chunk boundaries). --previous reads the last dead instance that runpod replaced and kept
// for this (restart policy "no", design.md's restart model); -f follows until the container stops or Ctrl-C.
import type { LogPort, OutputStream } from '../engine/ports/streams.js';
import { LineSplitter } from '../engine/ports/streams.js';
import { ExitCode, NotFoundError, UsageError } from '../errors.js';
import { formatSelector, type Selector } from '../kube/selector.js';
import type { ContainerInstance, ContainerSummary, PodSummary } from '../reconcile/podSummary.js';
import { abortedExitCode, type CommandContext } from './context.js';
import { connectEngine, openEngine } from './engineSession.js';
import { findPodArg, findPods, parsePodArg, pickContainer } from '../reconcile/pods.js';

export interface LogsOptions {
  /** name or namespace/name; or, instead, a selector. */
  pod?: string;
  /** -l: every pod whose labels match (kubectl logs -l), each pod's default container unless -c or --all-containers. */
  selector?: Selector;
  container?: string;
  /** Last n lines; undefined or -1: all. */
  tail?: number;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  /** Only output newer than this many milliseconds, or since this time (ms since the epoch). */
  since?: { agoMs: number } | { atMs: number };
  allContainers: boolean;
  prefix: boolean;
  namespace: string;
  host?: string;
  /** The isolation key (kube/project.ts): only pods made under it are seen. */
  project?: string;
}

export async function logsCommand(o: LogsOptions, ctx: CommandContext): Promise<number> {
  if (o.pod === undefined && o.selector === undefined) {
    throw new UsageError(
      'logs of which pod? give one (name, namespace/name, or kind/name such as job/migrate), or -l <selector> for the pods whose labels match; runpod status lists them',
    );
  }
  if (o.pod !== undefined && o.selector !== undefined) throw new UsageError('give a pod or -l <selector>, not both (as kubectl: a name cannot be given with a selector)');
  const ref = o.pod !== undefined ? parsePodArg(o.pod, o.namespace) : undefined;
  const engine = await openEngine(o.host, ctx.env, o.project);
  await connectEngine(engine, ctx);
  const pods = ref ? [await findPodArg(engine, ref, (line) => ctx.stderr.write(`${line}\n`))] : await findPods(engine, undefined, o.selector ? { selector: o.selector } : {});
  if (pods.length === 0) throw new NotFoundError(`no pods match -l ${formatSelector(o.selector ?? [])} (runpod status -l shows the same)`);
  const targets = pods.flatMap((pod) => {
    // --all-containers: the init containers first, in the order they ran, then the app containers (kubectl's order).
    const containers = o.allContainers ? [...pod.initContainers, ...pod.containers] : [ref ? pickContainer(pod, o.container, 'logs') : defaultContainer(pod, o.container, ctx)];
    if (containers.length === 0) throw new NotFoundError(`pod ${pod.namespace}/${pod.name} has no containers yet`);
    return containers.map((c) => ({ pod, container: c, instance: o.previous ? previousInstance(pod, c) : c.current }));
  });
  const since = o.since === undefined ? undefined : ('agoMs' in o.since ? ctx.now() - o.since.agoMs : o.since.atMs) / 1000;
  // kubectl logs -l shows the last 10 lines of each unless --tail says otherwise.
  const tail = o.tail ?? (o.selector ? 10 : undefined);
  // kubectl prefixes with [pod/<name>/<container>]; with --all-containers a reader needs to know whose line it is.
  const prefixed = o.prefix;
  const read = (t: (typeof targets)[number]): Promise<void> =>
    readOne(engine, t.instance, {
      follow: o.follow,
      timestamps: o.timestamps,
      ...(tail !== undefined && tail >= 0 ? { tail } : {}),
      ...(since !== undefined ? { since } : {}),
      prefix: prefixed ? `[pod/${t.pod.name}/${t.container.name}] ` : undefined,
      ctx,
    });
  if (o.follow)
    await Promise.all(targets.map(read)); // followed together, as they are written
  else for (const t of targets) await read(t); // one container after the other, each whole
  if (ctx.signal.aborted) return abortedExitCode(ctx);
  return ExitCode.ok;
}

/**
 * A pod found by selector: the container -c names, else the only one, else (as kubectl) the first, said on stderr;
 * kubectl's kubectl.kubernetes.io/default-container annotation is not kept by runpod, so the first is the spec's.
 */
function defaultContainer(pod: PodSummary, name: string | undefined, ctx: CommandContext): ContainerSummary {
  if (name !== undefined || pod.containers.length <= 1) return pickContainer(pod, name, 'logs');
  const first = pod.containers[0]!;
  ctx.stderr.write(`Defaulted container "${first.name}" of pod ${pod.namespace}/${pod.name} out of: ${pod.containers.map((c) => c.name).join(', ')}\n`);
  return first;
}

/** The newest dead instance before the current one; the engine's in-place restarts keep one log instead. */
function previousInstance(pod: PodSummary, c: ContainerSummary): ContainerInstance {
  const prev = c.previous.find((p) => p.state === 'exited' || p.state === 'dead');
  if (prev) return prev;
  const err = new NotFoundError(`previous terminated container ${c.name} in pod ${pod.namespace}/${pod.name} not found`);
  if (c.current.restartCount > 0) {
    err.withDetail([
      `the engine restarted it in place ${c.current.restartCount} time${c.current.restartCount === 1 ? '' : 's'} (restart policy ${c.current.engineRestartPolicy}), which keeps one log: earlier runs' output is in runpod logs without --previous`,
    ]);
  }
  throw err;
}

interface ReadOptions {
  follow: boolean;
  timestamps: boolean;
  tail?: number;
  since?: number;
  prefix: string | undefined;
  ctx: CommandContext;
}

async function readOne(engine: LogPort, instance: ContainerInstance, o: ReadOptions): Promise<void> {
  const { ctx } = o;
  const out = { stdout: ctx.stdout, stderr: ctx.stderr };
  const splitters = o.prefix
    ? {
        stdout: new LineSplitter((line) => ctx.stdout.write(`${o.prefix}${line}`)),
        stderr: new LineSplitter((line) => ctx.stderr.write(`${o.prefix}${line}`)),
      }
    : undefined;
  const onOutput = (stream: OutputStream, chunk: Buffer): void => {
    if (splitters) splitters[stream].push(chunk);
    else out[stream].write(chunk);
  };
  await engine.streamLogs(
    instance.id,
    {
      follow: o.follow,
      timestamps: o.timestamps,
      ...(o.tail !== undefined ? { tail: o.tail } : {}),
      ...(o.since !== undefined ? { since: o.since } : {}),
      signal: ctx.signal,
    },
    onOutput,
  );
  splitters?.stdout.flush();
  splitters?.stderr.flush();
}
