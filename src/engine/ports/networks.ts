// The networks port: the pods' bridge networks and who is attached to them.

export interface NetworkInfo {
  id: string;
  name: string;
  labels: Record<string, string>;
  /** RFC 3339, when the engine says. */
  created?: string;
  /** Attached containers by id: name and IPv4 address (without the prefix length). */
  containers: Record<string, { name: string; ipv4: string }>;
}

export interface NetworkPort {
  /** Networks carrying every given label, with the containers attached to each. */
  listNetworks(labels: string[]): Promise<NetworkInfo[]>;
  /** undefined when no such network exists. */
  inspectNetwork(idOrName: string): Promise<NetworkInfo | undefined>;
  /** A bridge network; throws NameConflictError when one of that name exists. Resolves with its id. */
  createNetwork(name: string, options: { labels: Record<string, string> }): Promise<string>;
  /** A network that is already gone is not an error. */
  removeNetwork(id: string): Promise<void>;
  /** Attach a container with these DNS aliases; already attached is not an error. */
  connectNetwork(network: string, container: string, aliases: readonly string[]): Promise<void>;
  /** Detach a container; one that is not attached (or gone) is not an error. */
  disconnectNetwork(network: string, container: string): Promise<void>;
}
