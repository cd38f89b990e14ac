/**
 * Stage: gives the request its warning recorder (`req.warnings`), whose warnings become the
 * answer's `Warning` headers whatever the answer is. Inside the timeout stage and outside
 * authentication, where the reference installs its recorder.
 */
import type { RequestHandler } from 'express';
import { headerWarningRecorder } from '../request/warning-recorder';
import '../request/request-context';

export function withWarningRecorder(): RequestHandler {
  return (req, res, next) => {
    req.warnings = headerWarningRecorder(res);
    next();
  };
}
