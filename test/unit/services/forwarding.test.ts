// Loading a Service's forwarding rules (services/forwarding.ts) on an engine host that cannot: the run is refused
// with the Service, its ports and the engine's reason (issue 13: never a connection silently to the wrong port).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EngineRequestError } from '../../../src/engine/ports/errors.js';
import { ServiceSetupError } from '../../../src/errors.js';
import { writeRules } from '../../../src/services/forwarding.js';
import { Role, ServiceLabel } from '../../../src/kube/serviceNames.js';
import { MemoryEngine } from '../support/memoryEngine.js';

const image = 'runpod/pause:test';

describe("an engine host that cannot load a Service's rules", () => {
  it('refuses with the Service, its ports and the reason the engine gave, and leaves no helper behind', async () => {
    const engine = new MemoryEngine({ images: [image] });
    const svc = await engine.createContainer('runpod_svc_web_default', { Image: image });
    await engine.startContainer(svc);
    // What Docker answers when the program does not exist on the engine host (neither layout has it).
    engine.onCall('startContainer', async (args, next) => {
      const c = engine.peek(args[0]);
      if (c?.Config.Labels?.[ServiceLabel.role] === Role.rules)
        throw new EngineRequestError(`OCI runtime create failed: exec: "${c.Config.Entrypoint?.[0] ?? ''}": stat: no such file or directory`, 400);
      return next(...args);
    });
    await assert.rejects(
      writeRules(engine, { containerId: svc, service: 'default/web', ports: ['80/TCP', '53/UDP'], image }, '*nat\nCOMMIT\n'),
      (err: unknown) =>
        err instanceof ServiceSetupError &&
        /^cannot forward ports 80\/TCP, 53\/UDP of service default\/web: loading its rules with the engine host's iptables-restore failed/.test(err.message) &&
        /\/usr\/sbin\/iptables-restore: OCI runtime create failed/.test(err.message) &&
        /\/sbin\/iptables-restore: OCI runtime create failed/.test(err.message) &&
        /Services need a Linux engine host with iptables/.test(err.message),
    );
    assert.deepEqual(
      engine.peekAll().filter((c) => c.Config.Labels?.[ServiceLabel.role] === Role.rules),
      [],
    );
  });
});
