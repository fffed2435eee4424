// Static PersistentVolumes (issue 24), through the CLI on the real engine: the Kubernetes tutorials "Configure a Pod
// to Use a PersistentVolume for Storage" and "Run a Single-Instance Stateful Application" with stand-in images and
// host paths under the test's own directory. A claim binds the PV as the PV controller binds it and the pod mounts
// the PV's host path; a claim that would stay Pending is refused before anything is made; `down --delete-claims`
// leaves the host directory alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { busybox, docker, keyedWorkspace, show } from './harness.js';

const taskPv = (hostPath: string): string => `apiVersion: v1
kind: PersistentVolume
metadata:
  name: task-pv-volume
  labels:
    type: local
spec:
  storageClassName: manual
  capacity:
    storage: 10Gi
  accessModes:
    - ReadWriteOnce
  hostPath:
    path: "${hostPath}"
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: task-pv-claim
spec:
  storageClassName: manual
  accessModes:
    - ReadWriteOnce
  resources:
    requests:
      storage: 3Gi
---
apiVersion: v1
kind: Pod
metadata:
  name: task-pv-pod
spec:
  terminationGracePeriodSeconds: 0
  volumes:
    - name: task-pv-storage
      persistentVolumeClaim:
        claimName: task-pv-claim
  containers:
    - name: task-pv-container
      image: ${busybox}
      command: [sh, -c, 'cat /usr/share/nginx/html/index.html; echo written-by-pod > /usr/share/nginx/html/from-pod; sleep 3600']
      volumeMounts:
        - mountPath: "/usr/share/nginx/html"
          name: task-pv-storage
`;

test('the PersistentVolume tutorial: the 3Gi claim binds the 10Gi hostPath PV of class manual, the pod reads and writes its host directory, and down --delete-claims keeps it', async (t) => {
  const w = keyedWorkspace(t, 'pv-task', {});
  const data = path.join(w.dir, 'data');
  fs.mkdirSync(data);
  fs.writeFileSync(path.join(data, 'index.html'), 'Hello from Kubernetes storage\n');
  fs.writeFileSync(w.file('task.yaml'), taskPv(data));

  const dry = await w.run('--dry-run', w.file('task.yaml'));
  assert.equal(dry.code, 0, show(dry));
  assert.match(dry.stdout, new RegExp(`claim default/task-pv-claim: bound to PersistentVolume task-pv-volume, hostPath ${data} `), show(dry));
  assert.match(dry.stdout, new RegExp(`volume task-pv-storage: claim task-pv-claim bound to PersistentVolume task-pv-volume, host path ${data}\\n`), show(dry));

  const r = await w.run(w.file('task.yaml'));
  assert.equal(r.code, 0, show(r));
  const logs = await w.run('logs', 'task-pv-pod');
  assert.equal(logs.stdout, 'Hello from Kubernetes storage\n', show(logs));
  // The container's write is on the host, in the PV's directory; no engine volume was made for the claim.
  assert.equal(fs.readFileSync(path.join(data, 'from-pod'), 'utf8'), 'written-by-pod\n');
  assert.equal(docker(['volume', 'ls', '-q', '--filter', `label=io.runpod.project=${w.key}`, '--filter', 'label=io.runpod.volume.type=persistentVolumeClaim']), '');

  const down = await w.run('down', '--delete-claims', w.file('task.yaml'));
  assert.equal(down.code, 0, show(down));
  assert.doesNotMatch(down.stderr, /PersistentVolume: not a Pod/, show(down));
  assert.deepEqual(fs.readdirSync(data).sort(), ['from-pod', 'index.html']);
});

test('the single-instance stateful application tutorial: mysql PV, claim and Deployment (stand-in image) keep their data in the host directory', async (t) => {
  const w = keyedWorkspace(t, 'pv-mysql', {});
  const data = path.join(w.dir, 'mysql');
  fs.writeFileSync(
    w.file('mysql.yaml'),
    `apiVersion: v1
kind: PersistentVolume
metadata:
  name: mysql-pv-volume
  labels:
    type: local
spec:
  storageClassName: manual
  capacity:
    storage: 20Gi
  accessModes:
    - ReadWriteOnce
  hostPath:
    path: "${data}"
    type: DirectoryOrCreate
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: mysql-pv-claim
spec:
  storageClassName: manual
  accessModes:
    - ReadWriteOnce
  resources:
    requests:
      storage: 20Gi
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: mysql
spec:
  selector:
    matchLabels:
      app: mysql
  strategy:
    type: Recreate
  template:
    metadata:
      labels:
        app: mysql
    spec:
      terminationGracePeriodSeconds: 0
      containers:
      - image: ${busybox}
        name: mysql
        command: [sh, -c, 'echo "started $MYSQL_ROOT_PASSWORD" >> /var/lib/mysql/ibdata; sleep 3600']
        env:
        - name: MYSQL_ROOT_PASSWORD
          value: password
        ports:
        - containerPort: 3306
          name: mysql
        volumeMounts:
        - name: mysql-persistent-storage
          mountPath: /var/lib/mysql
      volumes:
      - name: mysql-persistent-storage
        persistentVolumeClaim:
          claimName: mysql-pv-claim
`,
  );
  const r = await w.run(w.file('mysql.yaml'));
  assert.equal(r.code, 0, show(r));
  // DirectoryOrCreate made the directory, as for a hostPath volume; the database's file is there.
  assert.equal(fs.readFileSync(path.join(data, 'ibdata'), 'utf8'), 'started password\n');
  const down = await w.run('down', '--delete-claims', w.file('mysql.yaml'));
  assert.equal(down.code, 0, show(down));
  assert.equal(fs.readFileSync(path.join(data, 'ibdata'), 'utf8'), 'started password\n');

  // A claim asking more than the manual PV holds would stay Pending on a cluster: refused, nothing made.
  fs.writeFileSync(
    w.file('big.yaml'),
    fs.readFileSync(w.file('mysql.yaml'), 'utf8').replace('      storage: 20Gi\n---\napiVersion: apps/v1', '      storage: 30Gi\n---\napiVersion: apps/v1'),
  );
  const big = await w.run(w.file('big.yaml'));
  assert.equal(big.code, 2, show(big));
  assert.match(
    big.stderr,
    /big\.yaml:\d+ spec\.storageClassName: claim default\/mysql-pv-claim: the claim binds no PersistentVolume: class "manual" .*PersistentVolume mysql-pv-volume has capacity 20Gi, less than the 30Gi requested.*would stay Pending/,
    show(big),
  );
  assert.equal(docker(['ps', '-aq', '--filter', `label=io.runpod.project=${w.key}`]), '');
});
