// The images port: what runpod asks of the engine's image store (look, pull, import).

export interface ImageSummary {
  id: string;
  /** Go architecture of the image, when the engine says. */
  architecture?: string;
  /** The image's configured user (Config.User: "", "name", "uid", "uid:gid" …), for runAsNonRoot. */
  user?: string;
}

/** Registry credentials in the Engine API's X-Registry-Auth form. */
export interface RegistryAuth {
  username?: string;
  password?: string;
  auth?: string;
  identitytoken?: string;
  serveraddress: string;
}

export interface PullProgress {
  id?: string;
  status: string;
  current?: number;
  total?: number;
}

export interface ImagePort {
  inspectImage(ref: string): Promise<ImageSummary | undefined>;
  pullImage(ref: string, auth: RegistryAuth | undefined, onProgress?: (p: PullProgress) => void): Promise<void>;
  /** POST /images/create?fromSrc=- : an image from a root filesystem tarball. */
  importImage(tar: Buffer, ref: string, changes: string[]): Promise<void>;
}
