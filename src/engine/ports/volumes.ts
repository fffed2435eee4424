// The volumes port: named volumes (claims, emptyDirs on disk) by label.

export interface VolumeSummary {
  name: string;
  labels: Record<string, string>;
  /** RFC 3339, when the engine says. */
  createdAt?: string;
}

export interface VolumeCreate {
  labels: Record<string, string>;
  /** Local driver options: type, device, o (a tmpfs volume). */
  driverOpts?: Record<string, string>;
}

export interface VolumeInfo {
  name: string;
  /** The volume's directory on the engine host. */
  mountpoint: string;
  labels: Record<string, string>;
  driver: string;
  options: Record<string, string>;
}

export interface VolumePort {
  /** Volumes carrying every given label ("key" or "key=value"). */
  listVolumes(labels: string[]): Promise<VolumeSummary[]>;
  /** Remove a volume; a volume that is already gone is not an error. */
  removeVolume(name: string): Promise<void>;
  /** Create a named volume (local driver); an existing one of that name is returned as it is. */
  createVolume(name: string, options: VolumeCreate): Promise<VolumeInfo>;
  /** undefined when no such volume exists. */
  inspectVolume(name: string): Promise<VolumeInfo | undefined>;
}
