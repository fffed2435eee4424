// Localhost seccomp profiles read from the profile root (src/manifest/seccompProfiles.ts), with the reads given
// as data: the kubelet's <root>/<localhostProfile>, and a problem at the field for a file missing, unreadable or
// not JSON.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import yaml from 'js-yaml';
import { formatProblem } from '../../../src/errors.js';
import { parseManifests } from '../../../src/manifest/parse.js';
import { type ReadProfile, readSeccompProfiles } from '../../../src/manifest/seccompProfiles.js';

function pods(profiles: string[]) {
  const doc = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web' },
    spec: { containers: profiles.map((p, i) => ({ name: `c${i}`, image: 'busybox:1.36', securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: p } } })) },
  };
  const r = parseManifests([{ source: { file: 'pod.yaml' }, text: yaml.dump(doc) }], { defaultNamespace: 'default' });
  assert.deepEqual(r.problems, []);
  return r.pods;
}

const files: Record<string, Buffer | { code: string }> = {
  '/root/deny.json': Buffer.from('{\n  "defaultAction": "SCMP_ACT_ALLOW",\n  "syscalls": []\n}\n'),
  '/root/bad.json': Buffer.from('{ defaultAction: nope'),
  '/root/list.json': Buffer.from('[]'),
  '/root/secret.json': { code: 'EACCES' },
};
const reads: string[] = [];
const read: ReadProfile = async (f) => {
  reads.push(f);
  return files[f] ?? { code: 'ENOENT' };
};

describe('readSeccompProfiles', () => {
  it('reads <root>/<localhostProfile> once, and keeps its JSON compacted', async () => {
    reads.length = 0;
    const r = await readSeccompProfiles(pods(['deny.json', 'deny.json']), '/root', read);
    assert.deepEqual(r.problems, []);
    assert.deepEqual([...r.profiles], [['deny.json', '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[]}']]);
    assert.deepEqual(reads, ['/root/deny.json']);
  });
  it('missing, unreadable, not JSON, not an object: a problem at each field naming the file', async () => {
    const r = await readSeccompProfiles(pods(['gone.json', 'secret.json', 'bad.json', 'list.json']), '/root', read);
    const got = r.problems.map(formatProblem);
    assert.equal(got.length, 4);
    assert.match(
      got[0]!,
      /^pod\.yaml:\d+ spec\.containers\[0\]\.securityContext\.seccompProfile\.localhostProfile: seccomp profile \/root\/gone\.json: no such file; put the profile there, or point --seccomp-profile-root at its directory$/,
    );
    assert.match(got[1]!, /spec\.containers\[1\].*\/root\/secret\.json: permission denied/);
    assert.match(got[2]!, /spec\.containers\[2\].*\/root\/bad\.json: not JSON \(/);
    assert.match(got[3]!, /spec\.containers\[3\].*\/root\/list\.json: not a seccomp profile/);
  });
});
