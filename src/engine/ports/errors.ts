// How the engine says no, in runpod's terms: the failures a caller tells apart (a name taken, a request refused),
// whatever adapter answered.

/** The engine answered 409: a container of that name exists (another runpod got there first). */
export class NameConflictError extends Error {
  override name = 'NameConflictError';
  constructor(readonly containerName: string) {
    super(`a container named ${containerName} already exists`);
  }
}

/**
 * The engine refused a request about one container or image (bad mount, port taken, missing image …).
 * That is the pod's failure (exit 1), not the engine's (exit 3).
 */
export class EngineRequestError extends Error {
  override name = 'EngineRequestError';
  constructor(
    message: string,
    readonly statusCode: number | undefined,
  ) {
    super(message);
  }
}

// The host port a failed start could not bind (pure): Docker names it in the error of a start whose published
// port is held by another container or process.
//   "Bind for 0.0.0.0:8080 failed: port is already allocated", "Bind for :::8080 failed: …" (IPv6),
//   "listen tcp4 0.0.0.0:8080: bind: address already in use".
export function takenHostPort(message: string): number | undefined {
  const m = /:(\d+)\b[^\n]*?(?:port is already allocated|address already in use)/.exec(message);
  return m ? Number(m[1]) : undefined;
}
