// Command clientgo drives a capstan server with client-go, the reference client: every
// built-in kind the server serves is created, read, listed, updated and deleted through the
// typed clientset's REST clients in protobuf (or, with -mode=cbor and client-go's CBOR
// feature gates, in CBOR), then a watch and a shared informer run in the same encoding.
// It exits 1 with a line per failure; every answer's Content-Type is checked on the way.
// With -leave-in, it only creates one object of every kind, in that namespace, leaves them
// there and prints the path of each, a line each, for another server to read them back.
package main

import (
	"context"
	"flag"
	"fmt"
	"mime"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsclientset "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	aggregatorclientset "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
)

func itoa(value int) string { return strconv.Itoa(value) }

// run collects failures instead of stopping at the first, so one run shows every mismatch.
type run struct {
	mu       sync.Mutex
	failures []string
}

func (r *run) fail(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	message := fmt.Sprintf(format, args...)
	r.failures = append(r.failures, message)
	fmt.Println("FAIL", message)
}

// contentTypeCheck fails every successful answer, to a request that asked for the mode's
// media type, whose Content-Type is another one: a server falling back to JSON would
// otherwise go unnoticed, since client-go reads JSON too.
type contentTypeCheck struct {
	next     http.RoundTripper
	run      *run
	expected map[string]bool
	accept   string
	checked  atomic.Int64
}

func (c *contentTypeCheck) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err != nil || resp.StatusCode >= 300 || !strings.HasPrefix(req.Header.Get("Accept"), c.accept) {
		return resp, err
	}
	mediaType, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if params["stream"] != "" {
		mediaType += ";stream=" + params["stream"]
	}
	c.checked.Add(1)
	if !c.expected[mediaType] {
		c.run.fail("%s %s answered Content-Type %q", req.Method, req.URL.Path, resp.Header.Get("Content-Type"))
	}
	return resp, err
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "admin kubeconfig of the server")
	mode := flag.String("mode", "protobuf", "protobuf or cbor")
	leaveIn := flag.String("leave-in", "", "only create one object of every kind in this namespace, and print their paths")
	octet := flag.Int("octet", 3, "with -leave-in: the octet that keeps this run's addresses apart from another's")
	flag.Parse()

	r := &run{}
	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Println("kubeconfig:", err)
		os.Exit(2)
	}
	config.QPS, config.Burst = 500, 1000
	check := &contentTypeCheck{run: r}
	switch *mode {
	case "protobuf":
		config.ContentType = "application/vnd.kubernetes.protobuf"
		config.AcceptContentTypes = "application/vnd.kubernetes.protobuf"
		check.expected = map[string]bool{"application/vnd.kubernetes.protobuf": true, "application/vnd.kubernetes.protobuf;stream=watch": true}
	case "cbor":
		// With KUBE_FEATURE_ClientsAllowCBOR and KUBE_FEATURE_ClientsPreferCBOR set, an empty
		// ContentType means CBOR request bodies.
		config.AcceptContentTypes = "application/cbor"
		check.expected = map[string]bool{"application/cbor": true, "application/cbor-seq": true}
	default:
		fmt.Println("unknown -mode", *mode)
		os.Exit(2)
	}
	check.accept = config.AcceptContentTypes
	config.Wrap(func(next http.RoundTripper) http.RoundTripper { check.next = next; return check })

	clientset, err := kubernetes.NewForConfig(config)
	if err != nil {
		fmt.Println("clientset:", err)
		os.Exit(2)
	}
	extensions, err := apiextensionsclientset.NewForConfig(config)
	if err != nil {
		fmt.Println("apiextensions clientset:", err)
		os.Exit(2)
	}
	aggregator, err := aggregatorclientset.NewForConfig(config)
	if err != nil {
		fmt.Println("aggregator clientset:", err)
		os.Exit(2)
	}
	both := &clients{Clientset: clientset, apiextensions: extensions, aggregator: aggregator}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()

	if *leaveIn != "" {
		leaveEveryKind(ctx, r, both, *leaveIn, *octet)
		if len(r.failures) > 0 {
			os.Exit(1)
		}
		return
	}

	namespace := "cg-" + *mode
	if _, err := clientset.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{}); err != nil {
		fmt.Println("create namespace:", err)
		os.Exit(1)
	}

	cases := kindCases(*mode, map[string]int{"protobuf": 1, "cbor": 2}[*mode])
	checkEveryServedKind(r, clientset, cases)
	for _, kind := range cases {
		roundTrip(ctx, r, both, kind, namespace)
	}
	watchConfigMaps(ctx, r, clientset, namespace)
	readOpenAPIV2(r, clientset)
	syncInformer(ctx, r, clientset, namespace)

	if check.checked.Load() == 0 {
		r.fail("no answer asked for %s: the content type check saw nothing", config.AcceptContentTypes)
	}
	if len(r.failures) > 0 {
		fmt.Printf("%d failures (%s)\n", len(r.failures), *mode)
		os.Exit(1)
	}
	fmt.Printf("ok: %d kinds, watch and informer in %s (%d answers checked)\n", len(cases), *mode, check.checked.Load())
}

// checkEveryServedKind fails for a served resource that can be written and has no case here.
func checkEveryServedKind(r *run, clientset *kubernetes.Clientset, cases []kindCase) {
	_, lists, err := clientset.Discovery().ServerGroupsAndResources()
	if err != nil {
		r.fail("discovery: %v", err)
		return
	}
	covered := map[string]bool{}
	for _, kind := range cases {
		covered[kind.group+"/"+kind.version+"/"+kind.resource] = true
	}
	var missing []string
	for _, list := range lists {
		for _, resource := range list.APIResources {
			verbs := strings.Join(resource.Verbs, ",")
			if strings.Contains(resource.Name, "/") || !strings.Contains(verbs, "create") || !strings.Contains(verbs, "list") {
				continue
			}
			key := strings.TrimPrefix(list.GroupVersion+"/"+resource.Name, "")
			if !strings.Contains(list.GroupVersion, "/") {
				key = "/" + key
			}
			if !covered[key] {
				missing = append(missing, key)
			}
		}
	}
	sort.Strings(missing)
	for _, key := range missing {
		r.fail("served but not covered by a case: %s", key)
	}
}

func request(kind kindCase, client rest.Interface, verb, namespace string) *rest.Request {
	req := client.Verb(verb).Resource(kind.resource)
	if kind.namespaced {
		req = req.Namespace(namespace)
	}
	return req
}

// roundTrip creates, gets, lists, updates and deletes one object of the kind.
func roundTrip(ctx context.Context, r *run, clientset *clients, kind kindCase, namespace string) {
	client := kind.client(clientset)
	label := kind.group + "/" + kind.version + " " + kind.resource
	sent := kind.object(namespace)
	name := mustAccessor(sent).GetName()

	created, err := request(kind, client, "POST", namespace).Body(sent).Do(ctx).Get()
	if err != nil {
		r.fail("%s: create: %v", label, err)
		return
	}
	createdMeta := mustAccessor(created)
	if createdMeta.GetName() != name || createdMeta.GetResourceVersion() == "" || createdMeta.GetUID() == "" {
		r.fail("%s: create answered name %q rv %q uid %q", label, createdMeta.GetName(), createdMeta.GetResourceVersion(), createdMeta.GetUID())
	}

	got, err := request(kind, client, "GET", namespace).Name(name).Do(ctx).Get()
	if err != nil {
		r.fail("%s: get: %v", label, err)
		return
	}
	// A controller may write in between (quota status, CRD conditions): only the same version must read the same.
	if mustAccessor(got).GetResourceVersion() == createdMeta.GetResourceVersion() && !equality.Semantic.DeepEqual(created, got) {
		r.fail("%s: get differs from create's answer:\n  created %+v\n  got     %+v", label, created, got)
	}

	listed, err := request(kind, client, "GET", namespace).Param("labelSelector", "app=cg").Do(ctx).Get()
	if err != nil {
		r.fail("%s: list: %v", label, err)
	} else if !listHas(listed, name) {
		r.fail("%s: list (%T) lacks %s", label, listed, name)
	}

	updatedMeta := mustAccessor(got)
	labels := updatedMeta.GetLabels()
	labels["updated"] = "true"
	updatedMeta.SetLabels(labels)
	updated, err := request(kind, client, "PUT", namespace).Name(name).Body(got).Do(ctx).Get()
	if err != nil {
		r.fail("%s: update: %v", label, err)
	} else if mustAccessor(updated).GetLabels()["updated"] != "true" || mustAccessor(updated).GetResourceVersion() == createdMeta.GetResourceVersion() {
		r.fail("%s: update answered labels %v rv %s", label, mustAccessor(updated).GetLabels(), mustAccessor(updated).GetResourceVersion())
	}

	if err := request(kind, client, "DELETE", namespace).Name(name).Do(ctx).Error(); err != nil {
		r.fail("%s: delete: %v", label, err)
		return
	}
	after, err := request(kind, client, "GET", namespace).Name(name).Do(ctx).Get()
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		r.fail("%s: get after delete: %v", label, err)
	case mustAccessor(after).GetDeletionTimestamp() == nil:
		r.fail("%s: still there after delete, without deletionTimestamp", label)
	}
	fmt.Println("ok", label)
}

// leaveEveryKind creates the namespace and one object of every kind, named after it, and
// prints each object's path as a server serves it.
func leaveEveryKind(ctx context.Context, r *run, clientset *clients, namespace string, octet int) {
	if _, err := clientset.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{}); err != nil {
		r.fail("create namespace: %v", err)
		return
	}
	for _, kind := range kindCases(namespace, octet) {
		sent := kind.object(namespace)
		created, err := request(kind, kind.client(clientset), "POST", namespace).Body(sent).Do(ctx).Get()
		if err != nil {
			r.fail("%s/%s %s: create: %v", kind.group, kind.version, kind.resource, err)
			continue
		}
		path := "/apis/" + kind.group + "/" + kind.version
		if kind.group == "" {
			path = "/api/" + kind.version
		}
		if kind.namespaced {
			path += "/namespaces/" + namespace
		}
		fmt.Println(path + "/" + kind.resource + "/" + mustAccessor(created).GetName())
	}
}

func mustAccessor(object runtime.Object) metav1.Object {
	accessor, err := meta.Accessor(object)
	if err != nil {
		panic(err)
	}
	return accessor
}

func listHas(list runtime.Object, name string) bool {
	items, err := meta.ExtractList(list)
	if err != nil {
		return false
	}
	for _, item := range items {
		if mustAccessor(item).GetName() == name {
			return true
		}
	}
	return false
}

// watchConfigMaps watches from a list's resource version and expects the ADDED, MODIFIED and
// DELETED events of one config map, decoded into typed objects.
func watchConfigMaps(ctx context.Context, r *run, clientset *kubernetes.Clientset, namespace string) {
	configMaps := clientset.CoreV1().ConfigMaps(namespace)
	list, err := configMaps.List(ctx, metav1.ListOptions{})
	if err != nil {
		r.fail("watch: list: %v", err)
		return
	}
	watcher, err := configMaps.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion, TimeoutSeconds: ptr(int64(20))})
	if err != nil {
		r.fail("watch: %v", err)
		return
	}
	defer watcher.Stop()
	created, err := configMaps.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "watched"}, Data: map[string]string{"a": "1"}}, metav1.CreateOptions{})
	if err != nil {
		r.fail("watch: create: %v", err)
		return
	}
	created.Data["a"] = "2"
	if _, err := configMaps.Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		r.fail("watch: update: %v", err)
	}
	if err := configMaps.Delete(ctx, "watched", metav1.DeleteOptions{}); err != nil {
		r.fail("watch: delete: %v", err)
	}
	want := []string{"ADDED 1", "MODIFIED 2", "DELETED 2"}
	var seen []string
	deadline := time.After(10 * time.Second)
	for len(seen) < len(want) {
		select {
		case event, open := <-watcher.ResultChan():
			if !open {
				r.fail("watch: closed after %v", seen)
				return
			}
			if event.Type == watch.Error {
				r.fail("watch: error event %v", apierrors.FromObject(event.Object))
				return
			}
			configMap, ok := event.Object.(*corev1.ConfigMap)
			if !ok {
				r.fail("watch: event object is %T", event.Object)
				return
			}
			seen = append(seen, string(event.Type)+" "+configMap.Data["a"])
		case <-deadline:
			r.fail("watch: timed out after %v", seen)
			return
		}
	}
	if strings.Join(seen, ",") != strings.Join(want, ",") {
		r.fail("watch: events %v, want %v", seen, want)
	}
	fmt.Println("ok watch", seen)
}

// syncInformer starts a shared informer factory (list, then watch, as controllers do), waits
// for its caches, and expects it to see a config map created afterwards.
func syncInformer(ctx context.Context, r *run, clientset *kubernetes.Clientset, namespace string) {
	if _, err := clientset.CoreV1().ConfigMaps(namespace).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "before-sync"}}, metav1.CreateOptions{}); err != nil {
		r.fail("informer: create: %v", err)
		return
	}
	factory := informers.NewSharedInformerFactoryWithOptions(clientset, 0, informers.WithNamespace(namespace))
	configMaps := factory.Core().V1().ConfigMaps()
	configMaps.Informer()
	factory.Apps().V1().Deployments().Informer()
	stop := make(chan struct{})
	defer func() { close(stop); factory.Shutdown() }()
	factory.Start(stop)
	syncCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	for informerType, synced := range factory.WaitForCacheSync(syncCtx.Done()) {
		if !synced {
			r.fail("informer: %v did not sync", informerType)
			return
		}
	}
	if _, err := configMaps.Lister().ConfigMaps(namespace).Get("before-sync"); err != nil {
		r.fail("informer: synced cache lacks before-sync: %v", err)
	}
	if _, err := clientset.CoreV1().ConfigMaps(namespace).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after-sync"}}, metav1.CreateOptions{}); err != nil {
		r.fail("informer: create after sync: %v", err)
		return
	}
	err := waitUntil(10*time.Second, func() bool {
		_, err := configMaps.Lister().ConfigMaps(namespace).Get("after-sync")
		return err == nil
	})
	if err != nil {
		r.fail("informer: never saw after-sync: %v", err)
		return
	}
	fmt.Println("ok informer synced and followed")
}

func waitUntil(timeout time.Duration, done func() bool) error {
	deadline := time.Now().Add(timeout)
	for !done() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %v", timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}

// readOpenAPIV2 reads /openapi/v2 as client-go does (gnostic protobuf) and looks for a kind.
func readOpenAPIV2(r *run, clientset *kubernetes.Clientset) {
	document, err := clientset.Discovery().OpenAPISchema()
	if err != nil {
		r.fail("openapi v2: %v", err)
		return
	}
	for _, named := range document.GetDefinitions().GetAdditionalProperties() {
		if named.GetName() != "io.k8s.api.apps.v1.Deployment" {
			continue
		}
		for _, extension := range named.GetValue().GetVendorExtension() {
			if extension.GetName() == "x-kubernetes-group-version-kind" && strings.Contains(extension.GetValue().GetYaml(), "kind: Deployment") {
				fmt.Println("ok openapi v2 protobuf:", len(document.GetDefinitions().GetAdditionalProperties()), "definitions")
				return
			}
		}
		r.fail("openapi v2: Deployment lacks x-kubernetes-group-version-kind")
		return
	}
	r.fail("openapi v2: no io.k8s.api.apps.v1.Deployment among %d definitions", len(document.GetDefinitions().GetAdditionalProperties()))
}
