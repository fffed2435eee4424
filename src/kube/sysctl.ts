// Sysctl names as Kubernetes writes them, and which of them a container's own namespaces hold. Pure.

/** Sysctls in the IPC namespace (the rest of the namespaced ones, net.*, are in the network namespace). */
export function isIpcSysctl(name: string): boolean {
  return name === 'kernel.sem' || name.startsWith('kernel.shm') || name.startsWith('kernel.msg') || name.startsWith('fs.mqueue.');
}

/** Namespaced sysctls: the ones a container's own namespaces hold (Docker's and the kubelet's namespaced list). */
export function isNamespacedSysctl(name: string): boolean {
  return isIpcSysctl(name) || name.startsWith('net.');
}

/**
 * A sysctl name in dotted form: Kubernetes accepts "/" as the separator too, and then a "." inside a segment
 * stands for a literal "/" (pkg/kubelet/sysctl: ConvertSysctlVariableToDotsSeparator).
 */
export function dottedSysctl(name: string): string {
  const slash = name.indexOf('/');
  const dot = name.indexOf('.');
  if (slash < 0 || (dot >= 0 && dot < slash)) return name;
  return name.replace(/[./]/g, (ch) => (ch === '/' ? '.' : '/'));
}
