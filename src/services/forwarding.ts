// Writing a Service's forwarding rules (engine side). No image with iptables can be pulled here, and runpod's pause
// image holds one static program, so the rules are loaded by the engine host's own iptables-restore: a one-shot
// container from the pause image joins the Service container's network namespace with NET_ADMIN (which acts only
// in that namespace), the host's /usr, /etc and library directories mounted read-only at their own paths so the
// program finds its libraries and extensions, and the rules put into it as a file before it starts.
import { randomBytes } from 'node:crypto';
import type { ContainerFiles, ContainerLifecycle, CreateOptions } from '../engine/ports/containers.js';
import type { LogPort } from '../engine/ports/streams.js';
import { EngineRequestError } from '../engine/ports/errors.js';
import { ServiceSetupError } from '../errors.js';
import { tarArchive } from '../reconcile/tar.js';
import { Role, ServiceLabel } from '../kube/serviceNames.js';

/** Host directories the program may need, in the order of the usual layouts (merged /usr or not). */
const hostDirs = ['/usr', '/etc', '/lib', '/lib64', '/bin', '/sbin'];
const programs = ['/usr/sbin/iptables-restore', '/sbin/iptables-restore'];

interface Loader {
  program: string;
  binds: string[];
}

/** One probe of the host per engine and process: the layout does not change while runpod runs. */
const loaders = new WeakMap<object, Promise<Loader>>();

export interface RulesTarget {
  /** The Service container, whose network namespace the rules are for. */
  containerId: string;
  /** For messages: namespace/name of the Service, and its ports (80/TCP). */
  service: string;
  ports: readonly string[];
  image: string;
}

/** Load rules into the target's network namespace; throws ServiceSetupError with the reason when it cannot be done. */
export async function writeRules(engine: ContainerFiles & ContainerLifecycle & LogPort, target: RulesTarget, rules: string): Promise<void> {
  let loader = loaders.get(engine);
  if (loader === undefined) {
    loader = findLoader(engine, target, rules);
    loaders.set(engine, loader);
    loader.catch(() => loaders.delete(engine));
    await loader;
    return; // finding the loader has loaded these rules
  }
  const l = await loader;
  const result = await runLoader(engine, target, rules, l);
  if (result.exitCode !== 0) throw refusal(target, `${l.program} exited with ${result.exitCode}: ${result.output.trim() || 'no output'}`);
}

async function findLoader(engine: ContainerFiles & ContainerLifecycle & LogPort, target: RulesTarget, rules: string): Promise<Loader> {
  const tried: string[] = [];
  for (const program of programs) {
    let binds = hostDirs.map((d) => `${d}:${d}:ro`);
    // A directory the host does not have is dropped, one at a time, as the engine names it.
    for (let attempt = 0; attempt <= hostDirs.length; attempt++) {
      try {
        const result = await runLoader(engine, target, rules, { program, binds });
        if (result.exitCode === 0) return { program, binds };
        tried.push(`${program} exited with ${result.exitCode}: ${result.output.trim() || 'no output'}`);
        break;
      } catch (err) {
        const missing = err instanceof EngineRequestError ? /bind source path does not exist: (\S+)/.exec(err.message)?.[1] : undefined;
        if (missing !== undefined && binds.some((b) => b.startsWith(`${missing}:`))) {
          binds = binds.filter((b) => !b.startsWith(`${missing}:`));
          continue;
        }
        if (err instanceof EngineRequestError) {
          tried.push(`${program}: ${err.message}`);
          break;
        }
        throw err;
      }
    }
  }
  throw refusal(target, tried.join('; '));
}

function refusal(target: RulesTarget, why: string): ServiceSetupError {
  return new ServiceSetupError(
    `cannot forward ${target.ports.length === 1 ? 'port' : 'ports'} ${target.ports.join(', ')} of service ${target.service}: loading its rules with the engine host's iptables-restore failed (${why}); Services need a Linux engine host with iptables (Debian's iptables package), as Docker itself does; run without the Service (--skip-kind Service) to start the pods alone`,
  );
}

async function runLoader(engine: ContainerFiles & ContainerLifecycle & LogPort, target: RulesTarget, rules: string, l: Loader): Promise<{ exitCode: number; output: string }> {
  const name = `runpod_rules_${randomBytes(4).toString('hex')}`;
  const create: CreateOptions = {
    Image: target.image,
    Entrypoint: [l.program],
    Cmd: ['/rules'],
    Labels: { [ServiceLabel.role]: Role.rules },
    HostConfig: {
      NetworkMode: `container:${target.containerId}`,
      CapAdd: ['NET_ADMIN', 'NET_RAW'],
      CapDrop: ['ALL'],
      Binds: l.binds,
      // iptables-legacy takes a lock under /run.
      Tmpfs: { '/run': 'rw,size=1m' },
      ReadonlyRootfs: false,
    },
  };
  const id = await engine.createContainer(name, create);
  try {
    await engine.putArchive(id, '/', tarArchive([{ path: 'rules', type: 'file', mode: 0o644, uid: 0, gid: 0, content: Buffer.from(rules) }]));
    await engine.startContainer(id);
    const exitCode = await engine.waitContainer(id);
    const output = exitCode === 0 ? '' : await engine.logs(id, { tail: 20 });
    return { exitCode, output };
  } finally {
    await engine.removeContainer(id, { force: true }).catch(() => undefined);
  }
}
