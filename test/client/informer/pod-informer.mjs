// A @kubernetes/client-node informer on the pods of one namespace, as an application would run
// it, reporting what it sees as one JSON line per event on stdout.
//
// Why a separate script: client-node 2.x is ESM-only and needs Node >= 22, while jest runs the
// tests as CommonJS; the test spawns this with the same Node and reads its stdout.
//
//   node pod-informer.mjs <kubeconfig> <namespace>
//
// Lines out: {"event":"list","resourceVersion":...} after each (re)list, then
// {"event":"add"|"update"|"delete","name":...,"resourceVersion":...,"labels":{...}},
// {"event":"connect"}, {"event":"error","message":...,"statusCode":...}, and answers to commands.
// Lines in (stdin): "stop" (close the watch, keep the cache and its resource version: an
// application pausing), "start" (resume from that resource version), "snapshot" (the names in
// the cache and the resource version). The process exits when stdin closes.
import { CoreV1Api, KubeConfig, makeInformer } from '@kubernetes/client-node';
import { createInterface } from 'node:readline';

const [kubeconfigPath, namespace] = process.argv.slice(2);
if (!kubeconfigPath || !namespace) {
  process.stderr.write('usage: pod-informer.mjs <kubeconfig> <namespace>\n');
  process.exit(2);
}

const print = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

const kubeconfig = new KubeConfig();
kubeconfig.loadFromFile(kubeconfigPath);
const core = kubeconfig.makeApiClient(CoreV1Api);

const listPods = async () => {
  const list = await core.listNamespacedPod({ namespace });
  // Reported after the list so the test can tell a re-list (after a 410) from a resumed watch.
  print({
    event: 'list',
    resourceVersion: list.metadata?.resourceVersion,
    names: list.items.map((pod) => pod.metadata?.name),
  });
  return list;
};

const informer = makeInformer(kubeconfig, `/api/v1/namespaces/${namespace}/pods`, listPods);

const podEvent = (event) => (pod) =>
  print({
    event,
    name: pod.metadata?.name,
    resourceVersion: pod.metadata?.resourceVersion,
    labels: pod.metadata?.labels ?? {},
  });
informer.on('add', podEvent('add'));
informer.on('update', podEvent('update'));
informer.on('delete', podEvent('delete'));
informer.on('connect', () => print({ event: 'connect' }));
// stop() aborts the watch request, and client-node reports that abort as an error; an
// application that paused the informer itself ignores it, and so does this one.
let paused = false;
informer.on('error', (error) => {
  if (paused && error?.name === 'AbortError') return;
  print({ event: 'error', message: String(error?.message ?? error), statusCode: error?.statusCode });
});

const commands = {
  stop: async () => {
    paused = true;
    await informer.stop();
    print({ event: 'stopped', resourceVersion: informer.latestResourceVersion() });
  },
  start: async () => {
    print({ event: 'starting', resourceVersion: informer.latestResourceVersion() });
    paused = false;
    await informer.start();
  },
  snapshot: async () => {
    const names = informer
      .list(namespace)
      .map((pod) => pod.metadata?.name)
      .sort();
    print({ event: 'snapshot', names, resourceVersion: informer.latestResourceVersion() });
  },
};

const input = createInterface({ input: process.stdin });
input.on('line', (line) => {
  const command = commands[line.trim()];
  if (command === undefined) print({ event: 'error', message: `unknown command ${JSON.stringify(line)}` });
  else command().catch((error) => print({ event: 'error', message: String(error?.message ?? error) }));
});
input.on('close', () => {
  informer.stop();
  process.exit(0);
});

informer.start().catch((error) => print({ event: 'error', message: String(error?.message ?? error) }));
