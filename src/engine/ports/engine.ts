// The whole engine: every port in one object, as an adapter (docker.ts, the tests' memory engine) provides it.
// A caller names the narrowest port it uses; only the places that open the engine or hand it on hold all of it.
import type { ContainerPort } from './containers.js';
import type { HostPort } from './host.js';
import type { ImagePort } from './images.js';
import type { NetworkPort } from './networks.js';
import type { StreamPort } from './streams.js';
import type { VolumePort } from './volumes.js';

export interface Engine extends HostPort, ContainerPort, ImagePort, NetworkPort, VolumePort, StreamPort {}
