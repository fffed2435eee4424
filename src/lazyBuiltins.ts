// node:http, https and http2, loaded on first use instead of at import. A Node 20 startup-snapshot builder refuses
// to load them, and the single executable's snapshot holds the modules that use them (the engine client, hooks and
// probes: the run path), initialised in the builder so that no start compiles or evaluates them again. Loaded here,
// they cost only the commands that reach the engine or probe a port, as before. node:crypto too, for the names
// that manifest loading hashes: importing it at the top of those modules cost `validate` ~3.5 ms under bin/runpod
// (BENCHMARKS.md), though only a pod that is planned needs a hash.
import type Http from 'node:http';
import type Https from 'node:https';
import type Http2 from 'node:http2';
import type Crypto from 'node:crypto';
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

let http: typeof Http | undefined;
let https: typeof Https | undefined;
let http2: typeof Http2 | undefined;
let crypto: typeof Crypto | undefined;

export const nodeHttp = (): typeof Http => (http ??= load('node:http') as typeof Http);
export const nodeHttps = (): typeof Https => (https ??= load('node:https') as typeof Https);
export const nodeHttp2 = (): typeof Http2 => (http2 ??= load('node:http2') as typeof Http2);
export const nodeCrypto = (): typeof Crypto => (crypto ??= load('node:crypto') as typeof Crypto);
