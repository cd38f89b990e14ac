/**
 * Every method on the legacy `/watch/` paths as kube-apiserver 1.34.4 answers them
 * (fixtures/watch-path-methods.json, recorded by tools/reference/record-answers.ts): a built-in
 * kind's are GET routes, so another method is 405 and a path below an object (`.../pods/x/status`)
 * is 404; a custom resource's handler goes by the request info's verb, which the path makes
 * `watch` whatever the method, so DELETE, POST, PUT, PATCH, OPTIONS and HEAD all watch (a HEAD
 * with no body, the connection fit for the steps after it).
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'watch-path-methods.json'));
