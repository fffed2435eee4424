// Opening the engine: the one door from the rest of runpod to the Docker adapter. The address is resolved by the
// docker CLI's order of precedence (connection.ts); what comes back is the Engine of ports, never the adapter.
import { resolveEndpoint } from '../connection.js';
import { DockerEngine } from '../docker.js';
import type { Engine } from './engine.js';

/** The engine at --host, DOCKER_HOST, the current context, or the default socket; not yet asked anything. */
export async function openDockerEngine(host: string | undefined, env: NodeJS.ProcessEnv): Promise<Engine> {
  return new DockerEngine(await resolveEndpoint(host, env));
}
