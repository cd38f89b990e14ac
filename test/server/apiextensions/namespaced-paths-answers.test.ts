/**
 * The paths of a namespaced custom resource, as kube-apiserver 1.34.4 answers
 * (fixtures/namespaced-paths-answers.json, recorded by tools/reference/record-answers.ts): its
 * handler serves by verb (a POST on an object's path creates, a PUT or PATCH on the collection
 * wants a name), takes list alone without a namespace and passes any other request there, a
 * subresource's too, on to Go's plain 404, as a version not served; and refuses a verb it does not
 * serve (OPTIONS has none; a DELETE or POST of a subresource) naming the verb and the resource.
 */
import { join } from 'node:path';
import { testRecordedAnswers } from '../../helpers/recorded-answers-suite';

testRecordedAnswers(join(__dirname, 'fixtures', 'namespaced-paths-answers.json'));
