// The host port a failed start could not bind (pure): Docker names it in the error of a start whose published
// port is held by another container or process.
//   "Bind for 0.0.0.0:8080 failed: port is already allocated", "Bind for :::8080 failed: …" (IPv6),
//   "listen tcp4 0.0.0.0:8080: bind: address already in use".
export function takenHostPort(message: string): number | undefined {
  const m = /:(\d+)\b[^\n]*?(?:port is already allocated|address already in use)/.exec(message);
  return m ? Number(m[1]) : undefined;
}
