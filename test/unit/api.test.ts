// The request shapes the Engine API client sends (src/engine/api.ts, docker.ts): pure formatting, no engine.
// The client itself is exercised against the real engine by every test under test/engine/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { queryString } from '../../src/engine/api.js';
import { splitReference } from '../../src/engine/docker.js';

test('queryString: filters go as JSON, arrays as repeated keys, undefined values are left out', () => {
  const q = queryString({ all: true, filters: { label: ['a=b', 'c'] }, changes: ['ENV A=1', 'CMD ["x"]'], tail: undefined, t: 3 });
  const params = new URLSearchParams(q.slice(1));
  assert.equal(q[0], '?');
  assert.equal(params.get('all'), 'true');
  assert.deepEqual(JSON.parse(params.get('filters')!), { label: ['a=b', 'c'] });
  assert.deepEqual(params.getAll('changes'), ['ENV A=1', 'CMD ["x"]']);
  assert.equal(params.has('tail'), false);
  assert.equal(params.get('t'), '3');
});

test('queryString: nothing to send is no query at all', () => {
  assert.equal(queryString(undefined), '');
  assert.equal(queryString({ tail: undefined }), '');
});

test('splitReference: the tag or digest apart from the repository, "latest" when there is none', () => {
  assert.deepEqual(splitReference('busybox'), { repo: 'busybox', tag: 'latest' });
  assert.deepEqual(splitReference('busybox:1.36'), { repo: 'busybox', tag: '1.36' });
  // A registry port is not a tag.
  assert.deepEqual(splitReference('127.0.0.1:5000/team/app'), { repo: '127.0.0.1:5000/team/app', tag: 'latest' });
  assert.deepEqual(splitReference('127.0.0.1:5000/team/app:v2'), { repo: '127.0.0.1:5000/team/app', tag: 'v2' });
  const digest = `sha256:${'a'.repeat(64)}`;
  assert.deepEqual(splitReference(`registry.example/app@${digest}`), { repo: 'registry.example/app', tag: digest });
});
