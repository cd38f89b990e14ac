// Command remotecommand runs one command in a container through a capstan server with
// client-go's remotecommand executors, the reference's own clients of exec: over WebSocket
// (NewWebSocketExecutor, v5.channel.k8s.io, which the server translates to SPDY toward the
// kubelet) or over SPDY (NewSPDYExecutor, passed through to the kubelet). What it writes on
// stdin is given with -stdin; it prints {"stdout","stderr","error"} as one JSON line.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/remotecommand"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the server")
	namespace := flag.String("namespace", "default", "the pod's namespace")
	pod := flag.String("pod", "", "the pod")
	container := flag.String("container", "", "the container")
	protocol := flag.String("protocol", "websocket", "websocket or spdy")
	stdin := flag.String("stdin", "", "written to the command's stdin, then closed (none when empty)")
	flag.Parse()

	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fail(err)
	}
	clientset, err := kubernetes.NewForConfig(config)
	if err != nil {
		fail(err)
	}
	options := &corev1.PodExecOptions{Container: *container, Command: flag.Args(), Stdin: *stdin != "", Stdout: true, Stderr: true}
	url := clientset.CoreV1().RESTClient().Post().Resource("pods").Namespace(*namespace).Name(*pod).SubResource("exec").VersionedParams(options, scheme.ParameterCodec).URL()
	var executor remotecommand.Executor
	switch *protocol {
	case "websocket":
		executor, err = remotecommand.NewWebSocketExecutor(config, "GET", url.String())
	case "spdy":
		executor, err = remotecommand.NewSPDYExecutor(config, "POST", url)
	default:
		err = fmt.Errorf("unknown protocol %q", *protocol)
	}
	if err != nil {
		fail(err)
	}
	var stdout, stderr strings.Builder
	streams := remotecommand.StreamOptions{Stdout: &stdout, Stderr: &stderr}
	if *stdin != "" {
		streams.Stdin = strings.NewReader(*stdin)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	result := map[string]string{}
	if err := executor.StreamWithContext(ctx, streams); err != nil {
		result["error"] = err.Error()
	}
	result["stdout"] = stdout.String()
	result["stderr"] = stderr.String()
	out, _ := json.Marshal(result)
	fmt.Println(string(out))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(2)
}
