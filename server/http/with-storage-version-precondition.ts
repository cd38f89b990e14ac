/**
 * Stage (after authorization, before the handlers): while this server has not yet published the
 * StorageVersion of a built-in resource (server/controllers/storage-version-publisher.ts), a
 * write to it is answered 503, as the reference's WithStorageVersionPrecondition answers, so
 * that no object is written in a version no StorageVersion names. Reads pass, and so do the
 * writes the publication itself needs or that the server makes meanwhile: StorageVersions,
 * leases in kube-system (the identity lease), and the system namespaces the server creates.
 */
import type { RequestHandler } from 'express';
import type { StorageVersionPublisher } from '../controllers/storage-version-publisher';
import { writeStatus } from '../responsewriters/write-status';
import '../request/request-context';

const READS: ReadonlySet<string> = new Set(['get', 'list', 'watch']);

export function withStorageVersionPrecondition(publisher: StorageVersionPublisher): RequestHandler {
  let completed = false;
  void publisher.completed.then(() => (completed = true));
  return (req, res, next) => {
    const info = req.requestInfo;
    if (completed || !info.isResourceRequest || READS.has(info.verb)) return next();
    if (info.apiGroup === 'internal.apiserver.k8s.io' && info.resource === 'storageversions') return next();
    if (info.apiGroup === 'coordination.k8s.io' && info.resource === 'leases' && info.namespace === 'kube-system')
      return next();
    const user = req.user;
    if (
      info.apiGroup === '' &&
      info.resource === 'namespaces' &&
      info.verb === 'create' &&
      user?.name === 'system:apiserver' &&
      user.groups.includes('system:masters')
    )
      return next();
    const held = publisher.heldWrite(info.apiGroup, info.resource);
    // Answered here rather than thrown: an expected answer while starting, not a failure to log.
    if (held) writeStatus(res, held);
    else next();
  };
}
