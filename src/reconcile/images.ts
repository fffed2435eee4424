// Images for the containers a sync creates, per imagePullPolicy (Kubernetes: Always pulls on every container
// creation, IfNotPresent pulls when absent, Never uses only a local image). One pull per image per run.
import { EngineRequestError } from '../engine/ports/errors.js';
import type { ImagePort, PullProgress, RegistryAuth } from '../engine/ports/images.js';
import { pullableRef } from '../imageRef.js';
import type { PullPolicy } from '../plan/types.js';

export class ImageUnavailableError extends Error {
  override name = 'ImageUnavailableError';
}

export type AuthLookup = (image: string) => Promise<RegistryAuth | undefined>;

/** A pod's own credentials (its imagePullSecrets), tried before the Docker config's. */
export interface PodAuth {
  /** Names the credentials, so pulls with different credentials are not shared. */
  id: string;
  lookup: AuthLookup;
}

/**
 * What the engine says when it could not reach the registry at all (no network, no DNS, nothing listening, a
 * timeout), as opposed to a registry that answered no (unauthorized, not found): Go's net and net/http errors as
 * the daemon passes them on.
 */
const unreachable =
  /dial tcp|no such host|network is unreachable|connection refused|connection reset by peer|i\/o timeout|TLS handshake timeout|Client\.Timeout|context deadline exceeded|server misbehaving/;

export interface PullerOptions {
  onProgress?: (image: string, p: PullProgress) => void;
  /**
   * The pull a container's imagePullPolicy Always asks for could not reach the registry, and the image is on the
   * engine: told here, and the image on the engine is used (see ensure). Without it (--pull always, or a caller that
   * wants no fallback) such a pull fails.
   */
  onOfflineFallback?: (image: string, why: string) => void;
}

export class ImagePuller {
  private readonly pulls = new Map<string, Promise<void>>();
  private readonly fellBack = new Set<string>();

  constructor(
    private readonly engine: ImagePort,
    private readonly auth: AuthLookup,
    private readonly o: PullerOptions = {},
  ) {}

  /**
   * Make the image present as the policy says; throws ImageUnavailableError with the reason otherwise.
   *
   * Always pulls, as the kubelet does, and a pull that fails fails the container there (ErrImagePull). On one
   * host runpod goes on with the image the engine has when the registry cannot be reached at all, saying so
   * (onOfflineFallback): the policy is the default of every untagged or :latest image, and a boot step or an
   * offline CI runner with the image loaded should not fail for a registry it does not need. A registry that
   * answers no (credentials, a tag gone) still fails the pull, as does --pull always (no fallback asked); the
   * error then says the image is on the engine and that --pull missing uses it.
   */
  async ensure(image: string, policy: PullPolicy, podAuth?: PodAuth): Promise<void> {
    if (policy !== 'Always') {
      if (await this.engine.inspectImage(image)) return;
      if (policy === 'Never') {
        throw new ImageUnavailableError(`image ${image} is not present on the engine and imagePullPolicy is Never (load it first, or use --pull missing)`);
      }
    }
    const key = `${image}\0${podAuth?.id ?? ''}`;
    let pull = this.pulls.get(key);
    if (!pull) {
      pull = this.pull(image, podAuth);
      this.pulls.set(key, pull);
    }
    try {
      await pull;
    } catch (err) {
      if (policy !== 'Always' || !(err instanceof ImageUnavailableError) || !(await this.engine.inspectImage(image))) throw err;
      const fallBack = this.o.onOfflineFallback;
      if (fallBack === undefined || !unreachable.test(err.message)) {
        throw new ImageUnavailableError(`${err.message}; image ${image} is on the engine: --pull missing runs it without asking the registry`);
      }
      if (!this.fellBack.has(image)) {
        this.fellBack.add(image);
        fallBack(image, err.message);
      }
    }
  }

  private async pull(image: string, podAuth: PodAuth | undefined): Promise<void> {
    let auth: RegistryAuth | undefined;
    try {
      auth = (await podAuth?.lookup(image)) ?? (await this.auth(image));
    } catch (err) {
      throw new ImageUnavailableError(`cannot read registry credentials for ${image}: ${(err as Error).message}`);
    }
    const onProgress = this.o.onProgress;
    onProgress?.(image, { status: 'pulling' });
    try {
      await this.engine.pullImage(pullableRef(image), auth, onProgress ? (p) => onProgress(image, p) : undefined);
    } catch (err) {
      if (err instanceof EngineRequestError) {
        throw new ImageUnavailableError(`cannot pull image ${image}: ${err.message.replace(/^pull [^:]+: /, '')}`);
      }
      throw err;
    }
  }
}
