// What a run reports of one Service (part of the run's result document, report/result.ts).

/** A Service as the run left it: where it answers, and on which host ports. */
export interface ServiceResult {
  namespace: string;
  name: string;
  type: 'ClusterIP' | 'NodePort' | 'LoadBalancer' | 'headless';
  /** The address of the Service's container on its namespace's network (none when headless). */
  ip?: string;
  /** The names it answers to from its namespace's pods (the bare name, then the qualified forms). */
  dnsNames: string[];
  ports: Array<{ name?: string; port: number; protocol: 'TCP' | 'UDP'; targetPort: number | string; hostPort?: number }>;
}
