// The Services' endpoints kept up to date while runpod watches its pods (services/endpointsController.ts), on the
// in-memory engine: a pass that fails while the engine is lost is not held against the run once a later pass of
// that namespace succeeds (found by faults.test.ts: the engine stopped during the wait and came back, the pod ran,
// and the run still ended with exit 3 on a refresh's EPIPE from the outage).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EngineUnreachableError } from '../../../src/errors.js';
import { EndpointsController } from '../../../src/services/endpointsController.js';
import { MemoryEngine } from '../support/memoryEngine.js';

const image = 'runpod/pause:test';

describe('the endpoints controller and a lost engine', () => {
  it('a failed pass is the error until a later pass of that namespace succeeds', async () => {
    const engine = new MemoryEngine({ images: [image] });
    const endpoints = new EndpointsController(engine, undefined, image);
    engine.goDown();
    await endpoints.refresh('default');
    await endpoints.refresh('web');
    assert.ok(endpoints.error instanceof EngineUnreachableError, String(endpoints.error));
    engine.comeBack();
    await endpoints.refresh('default');
    assert.ok(endpoints.error instanceof EngineUnreachableError, 'namespace web has not had a good pass yet');
    await endpoints.refresh('web');
    assert.equal(endpoints.error, undefined);
  });
});
