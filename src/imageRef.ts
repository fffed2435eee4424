// Docker image references, parsed the way the docker CLI (distribution/reference) normalizes them.
// Pure: used by manifest defaulting (imagePullPolicy) and by registry credential look-up.

export interface ImageRef {
  /** Registry host (with port), "docker.io" when the reference names none. */
  domain: string;
  /** Repository path within the registry: "library/busybox", "org/app". */
  path: string;
  tag?: string;
  digest?: string;
}

export const dockerHubDomain = 'docker.io';

/**
 * Split a reference into registry, path, tag and digest. The first component is a registry when it contains
 * "." or ":" or is "localhost" (distribution/reference's rule); otherwise the image lives on Docker Hub, where
 * single-component names are under "library/".
 */
export function parseImageRef(ref: string): ImageRef {
  let rest = ref;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  let tag: string | undefined;
  const lastSlash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  if (colon > lastSlash) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  let domain = dockerHubDomain;
  let path = rest;
  const firstSlash = rest.indexOf('/');
  if (firstSlash >= 0) {
    const first = rest.slice(0, firstSlash);
    if (first.includes('.') || first.includes(':') || first === 'localhost') {
      domain = first;
      path = rest.slice(firstSlash + 1);
    }
  }
  if (domain === 'index.docker.io') domain = dockerHubDomain;
  if (domain === dockerHubDomain && !path.includes('/')) path = `library/${path}`;
  return { domain, path, ...(tag !== undefined ? { tag } : {}), ...(digest !== undefined ? { digest } : {}) };
}

/**
 * Kubernetes defaults imagePullPolicy to Always when the image has the tag :latest or no tag (and no digest),
 * otherwise IfNotPresent (https://kubernetes.io/docs/concepts/containers/images/#imagepullpolicy-defaulting).
 */
export function defaultPullPolicy(image: string): 'Always' | 'IfNotPresent' {
  const ref = parseImageRef(image);
  if (ref.digest !== undefined) return 'IfNotPresent';
  return ref.tag === undefined || ref.tag === 'latest' ? 'Always' : 'IfNotPresent';
}

/** The reference to pull: Docker pulls every tag of a repository when none is given, so name :latest. */
export function pullableRef(image: string): string {
  const ref = parseImageRef(image);
  return ref.tag === undefined && ref.digest === undefined ? `${image}:latest` : image;
}
