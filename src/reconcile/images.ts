// Images for the containers a sync creates, per imagePullPolicy (Kubernetes: Always pulls on every container
// creation, IfNotPresent pulls when absent, Never uses only a local image). One pull per image per run.
import type { Engine, PullProgress, RegistryAuth } from '../engine/engine.js';
import { EngineRequestError } from '../engine/engine.js';
import type { PullPolicy } from '../plan/translate.js';
import { pullableRef } from '../imageRef.js';

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

export class ImagePuller {
  private readonly pulls = new Map<string, Promise<void>>();

  constructor(
    private readonly engine: Engine,
    private readonly auth: AuthLookup,
    private readonly onProgress?: (image: string, p: PullProgress) => void,
  ) {}

  /** Make the image present as the policy says; throws ImageUnavailableError with the reason otherwise. */
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
    await pull;
  }

  private async pull(image: string, podAuth: PodAuth | undefined): Promise<void> {
    let auth: RegistryAuth | undefined;
    try {
      auth = (await podAuth?.lookup(image)) ?? (await this.auth(image));
    } catch (err) {
      throw new ImageUnavailableError(`cannot read registry credentials for ${image}: ${(err as Error).message}`);
    }
    this.onProgress?.(image, { status: 'pulling' });
    try {
      await this.engine.pullImage(pullableRef(image), auth, this.onProgress ? (p) => this.onProgress!(image, p) : undefined);
    } catch (err) {
      if (err instanceof EngineRequestError) {
        throw new ImageUnavailableError(`cannot pull image ${image}: ${err.message.replace(/^pull [^:]+: /, '')}`);
      }
      throw err;
    }
  }
}
