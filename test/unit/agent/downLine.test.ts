// The lines that tell how to remove what a run left: they name the engine the run used when it was given --host, so
// that running them acts on that engine, not on the default one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runFailure } from '../../../src/agent/verdict.js';
import { downLine } from '../../../src/agent/made.js';

const made = {
  project: 'ci-7',
  ownKey: false,
  pods: [{ namespace: 'default', name: 'web' }],
  keepClaims: false,
  claimVolumes: [] as string[],
  manifestWords: 'k8s/',
};

describe('down lines', () => {
  it('name the key and the manifests; --delete-claims when the run made claims', () => {
    assert.equal(downLine(made), 'runpod down --project ci-7 k8s/');
    assert.equal(downLine({ ...made, claimVolumes: ['pvc_default.ci-7_data'] }), 'runpod down --project ci-7 --delete-claims k8s/');
  });

  it('name the engine when the run was given --host', () => {
    assert.equal(downLine({ ...made, hostWords: ' --host tcp://10.0.0.5:2375' }), 'runpod down --host tcp://10.0.0.5:2375 --project ci-7 k8s/');
    assert.equal(downLine({ ...made, hostWords: ' --host tcp://10.0.0.5:2375', ownKey: true }), 'runpod down --host tcp://10.0.0.5:2375 --project ci-7 --delete-claims --all');
  });

  it("a failed run's how-to lines name the engine too", () => {
    const err = runFailure({
      ending: 'failed',
      outcomes: [],
      results: [],
      rollouts: [],
      signal: undefined,
      waitedFor: 'running',
      manifests: 'k8s/',
      fromStdin: false,
      project: 'ci-7',
      hostWords: ' --host tcp://10.0.0.5:2375',
      leftInPlace: true,
    });
    assert.ok(err);
    assert.match(err.detail().join('\n'), /remove it with: runpod down --host tcp:\/\/10\.0\.0\.5:2375 --project ci-7 k8s\/$/m);
  });
});
