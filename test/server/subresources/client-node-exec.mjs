// Runs one command in a container with @kubernetes/client-node's Exec (WebSocket, offering
// v5.channel.k8s.io down to channel.k8s.io) and prints {stdout, status} as one JSON line.
//   node client-node-exec.mjs <kubeconfig> <namespace> <pod> <container> <command...>
import { Writable } from 'node:stream';
import { Exec, KubeConfig } from '@kubernetes/client-node';

const [kubeconfig, namespace, pod, container, ...command] = process.argv.slice(2);
const config = new KubeConfig();
config.loadFromFile(kubeconfig);
let stdout = '';
const out = new Writable({
  write(chunk, _encoding, done) {
    stdout += chunk.toString();
    done();
  },
});
const socket = await new Exec(config).exec(
  namespace,
  pod,
  container,
  command,
  out,
  process.stderr,
  null,
  false,
  (status) => {
    console.log(JSON.stringify({ stdout, status, protocol: socket.protocol }));
    process.exit(0);
  },
);
