// imagePullPolicy Always when the registry cannot be reached (reconcile/images.ts), on the in-memory engine, whose
// pulls fail as a daemon with no way to the registry answers unless a ref is made pullable.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EngineRequestError } from '../../../src/engine/ports/errors.js';
import { ImagePuller, ImageUnavailableError } from '../../../src/reconcile/images.js';
import { MemoryEngine } from '../support/memoryEngine.js';

const engines: MemoryEngine[] = [];
afterEach(() => {
  for (const e of engines.splice(0)) e.dispose();
});
const engineWith = (...images: string[]): MemoryEngine => {
  const e = new MemoryEngine({ images });
  engines.push(e);
  return e;
};
const noAuth = (): Promise<undefined> => Promise.resolve(undefined);

describe('imagePullPolicy Always and a registry out of reach', () => {
  it('the image on the engine is used, said once per image', async () => {
    const engine = engineWith('redis:latest');
    const said: string[] = [];
    const images = new ImagePuller(engine, noAuth, { onOfflineFallback: (image, why) => said.push(`${image}: ${why}`) });
    await images.ensure('redis', 'Always');
    await images.ensure('redis', 'Always');
    assert.deepEqual(said, ['redis: cannot pull image redis: Get "https://registry-1.docker.io/v2/": dial tcp: lookup registry-1.docker.io: no such host']);
  });
  it('without a fallback (--pull always) the pull fails, saying the image is there and what uses it', async () => {
    const images = new ImagePuller(engineWith('redis:latest'), noAuth);
    await assert.rejects(
      images.ensure('redis', 'Always'),
      (err: unknown) => err instanceof ImageUnavailableError && /no such host; image redis is on the engine: --pull missing runs it without asking the registry$/.test(err.message),
    );
  });
  it('an absent image fails as before, with no word of one on the engine', async () => {
    const images = new ImagePuller(engineWith(), noAuth, { onOfflineFallback: () => assert.fail('no fallback without the image') });
    await assert.rejects(images.ensure('redis', 'Always'), (err: unknown) => err instanceof ImageUnavailableError && !/on the engine/.test(err.message));
  });
  it('a registry that answers no (credentials) is no fallback: the pull fails, naming --pull missing', async () => {
    const engine = engineWith('registry.example/app:latest');
    engine.failNext('pullImage', new EngineRequestError('pull registry.example/app:latest: unauthorized: authentication required', 500));
    const images = new ImagePuller(engine, noAuth, { onOfflineFallback: () => assert.fail('the registry answered') });
    await assert.rejects(
      images.ensure('registry.example/app:latest', 'Always'),
      /unauthorized: authentication required; image registry\.example\/app:latest is on the engine: --pull missing/,
    );
  });
});
