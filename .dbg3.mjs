import { parseManifests } from './dist/src/manifest/parse.js';
const text = `apiVersion: v1
kind: Pod
metadata:
  name: web
  restartPolicy: Never
spec:
  restartPolicy: Sometimes
  containers:
  - name: app
    imagePullPolicy: Maybe`;
console.log(parseManifests([{source:{file:'p'}, text}], {defaultNamespace:'default'}).problems);
