package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclientset "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggregatorclientset "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"
)

// clients are the typed clientsets whose REST clients the cases write through: client-go's
// own, apiextensions-apiserver's for CustomResourceDefinitions and kube-aggregator's for
// APIServices.
type clients struct {
	*kubernetes.Clientset
	apiextensions *apiextensionsclientset.Clientset
	aggregator    *aggregatorclientset.Clientset
}

// kindCase is one served (group, version, resource) and a valid object of its kind.
type kindCase struct {
	group, version, resource string
	namespaced               bool
	client                   func(*clients) rest.Interface
	object                   func(namespace string) runtime.Object
}

func objectMeta(name, namespace string, namespaced bool) metav1.ObjectMeta {
	if !namespaced {
		namespace = ""
	}
	return metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{"app": "cg"}}
}

func podSpec() corev1.PodSpec {
	return corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1.27", Ports: []corev1.ContainerPort{{ContainerPort: 80}}}}}
}

func podTemplate() corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "cg"}}, Spec: podSpec()}
}

func ptr[T any](value T) *T { return &value }

func selector() *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{"app": "cg"}}
}

func certificateRequest() []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "client-go-test"}}, key)
	if err != nil {
		panic(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

func core(c *clients) rest.Interface          { return c.CoreV1().RESTClient() }
func apps(c *clients) rest.Interface          { return c.AppsV1().RESTClient() }
func batch(c *clients) rest.Interface         { return c.BatchV1().RESTClient() }
func hpa1(c *clients) rest.Interface          { return c.AutoscalingV1().RESTClient() }
func hpa2(c *clients) rest.Interface          { return c.AutoscalingV2().RESTClient() }
func coordination(c *clients) rest.Interface  { return c.CoordinationV1().RESTClient() }
func events(c *clients) rest.Interface        { return c.EventsV1().RESTClient() }
func discovery(c *clients) rest.Interface     { return c.DiscoveryV1().RESTClient() }
func policy(c *clients) rest.Interface        { return c.PolicyV1().RESTClient() }
func networking(c *clients) rest.Interface    { return c.NetworkingV1().RESTClient() }
func scheduling(c *clients) rest.Interface    { return c.SchedulingV1().RESTClient() }
func storage(c *clients) rest.Interface       { return c.StorageV1().RESTClient() }
func node(c *clients) rest.Interface          { return c.NodeV1().RESTClient() }
func dra(c *clients) rest.Interface           { return c.ResourceV1().RESTClient() }
func apiextensions(c *clients) rest.Interface { return c.apiextensions.ApiextensionsV1().RESTClient() }
func apiregistration(c *clients) rest.Interface {
	return c.aggregator.ApiregistrationV1().RESTClient()
}
func admissionregistration(c *clients) rest.Interface {
	return c.AdmissionregistrationV1().RESTClient()
}
func rbac(c *clients) rest.Interface        { return c.RbacV1().RESTClient() }
func flowcontrol(c *clients) rest.Interface { return c.FlowcontrolV1().RESTClient() }
func certificates(c *clients) rest.Interface {
	return c.CertificatesV1().RESTClient()
}

// kindCases lists every built-in kind the program writes; `suffix` keeps the two passes
// (protobuf, CBOR) apart where names are cluster-wide.
func kindCases(suffix string, ipOctet int) []kindCase {
	name := "cg-" + suffix
	now := metav1.NewMicroTime(time.Now().Truncate(time.Microsecond))
	return []kindCase{
		{"", "v1", "namespaces", false, core, func(ns string) runtime.Object {
			return &corev1.Namespace{ObjectMeta: objectMeta(name+"-ns", ns, false)}
		}},
		{"", "v1", "pods", true, core, func(ns string) runtime.Object {
			return &corev1.Pod{ObjectMeta: objectMeta(name, ns, true), Spec: podSpec()}
		}},
		{"", "v1", "services", true, core, func(ns string) runtime.Object {
			return &corev1.Service{ObjectMeta: objectMeta(name, ns, true), Spec: corev1.ServiceSpec{
				Selector: map[string]string{"app": "cg"},
				Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}},
			}}
		}},
		{"", "v1", "configmaps", true, core, func(ns string) runtime.Object {
			return &corev1.ConfigMap{ObjectMeta: objectMeta(name, ns, true), Data: map[string]string{"a": "1"}, BinaryData: map[string][]byte{"b": {0, 1, 0xfe, 0xff}}}
		}},
		{"", "v1", "secrets", true, core, func(ns string) runtime.Object {
			return &corev1.Secret{ObjectMeta: objectMeta(name, ns, true), Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"k": {0, 1, 0xfe, 0xff}}}
		}},
		{"", "v1", "serviceaccounts", true, core, func(ns string) runtime.Object {
			return &corev1.ServiceAccount{ObjectMeta: objectMeta(name, ns, true)}
		}},
		{"", "v1", "nodes", false, core, func(ns string) runtime.Object {
			return &corev1.Node{ObjectMeta: objectMeta(name, ns, false), Spec: corev1.NodeSpec{PodCIDR: "10.244.0.0/24"}}
		}},
		{"", "v1", "events", true, core, func(ns string) runtime.Object {
			return &corev1.Event{
				ObjectMeta:     objectMeta(name, ns, true),
				InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: "p", APIVersion: "v1"},
				Reason:         "Tested", Message: "client-go wrote this", Type: corev1.EventTypeNormal, Count: 1,
				Source:         corev1.EventSource{Component: "client-go-test"},
				FirstTimestamp: metav1.NewTime(now.Time.Truncate(time.Second)), LastTimestamp: metav1.NewTime(now.Time.Truncate(time.Second)),
			}
		}},
		{"", "v1", "endpoints", true, core, func(ns string) runtime.Object {
			return &corev1.Endpoints{ObjectMeta: objectMeta(name, ns, true), Subsets: []corev1.EndpointSubset{{
				Addresses: []corev1.EndpointAddress{{IP: "10.1.2.3"}}, Ports: []corev1.EndpointPort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}},
			}}}
		}},
		{"", "v1", "persistentvolumes", false, core, func(ns string) runtime.Object {
			return &corev1.PersistentVolume{ObjectMeta: objectMeta(name, ns, false), Spec: corev1.PersistentVolumeSpec{
				Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
				AccessModes:            []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/cg"}},
			}}
		}},
		{"", "v1", "persistentvolumeclaims", true, core, func(ns string) runtime.Object {
			return &corev1.PersistentVolumeClaim{ObjectMeta: objectMeta(name, ns, true), Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			}}
		}},
		{"", "v1", "limitranges", true, core, func(ns string) runtime.Object {
			return &corev1.LimitRange{ObjectMeta: objectMeta(name, ns, true), Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
				Type: corev1.LimitTypeContainer, Default: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
			}}}}
		}},
		{"", "v1", "resourcequotas", true, core, func(ns string) runtime.Object {
			return &corev1.ResourceQuota{ObjectMeta: objectMeta(name, ns, true), Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("100")}}}
		}},
		{"", "v1", "podtemplates", true, core, func(ns string) runtime.Object {
			return &corev1.PodTemplate{ObjectMeta: objectMeta(name, ns, true), Template: podTemplate()}
		}},
		{"", "v1", "replicationcontrollers", true, core, func(ns string) runtime.Object {
			template := podTemplate()
			return &corev1.ReplicationController{ObjectMeta: objectMeta(name, ns, true), Spec: corev1.ReplicationControllerSpec{
				Replicas: ptr(int32(1)), Selector: map[string]string{"app": "cg"}, Template: &template,
			}}
		}},
		{"apps", "v1", "deployments", true, apps, func(ns string) runtime.Object {
			return &appsv1.Deployment{ObjectMeta: objectMeta(name, ns, true), Spec: appsv1.DeploymentSpec{Replicas: ptr(int32(2)), Selector: selector(), Template: podTemplate()}}
		}},
		{"apps", "v1", "replicasets", true, apps, func(ns string) runtime.Object {
			return &appsv1.ReplicaSet{ObjectMeta: objectMeta(name, ns, true), Spec: appsv1.ReplicaSetSpec{Replicas: ptr(int32(1)), Selector: selector(), Template: podTemplate()}}
		}},
		{"apps", "v1", "statefulsets", true, apps, func(ns string) runtime.Object {
			return &appsv1.StatefulSet{ObjectMeta: objectMeta(name, ns, true), Spec: appsv1.StatefulSetSpec{Replicas: ptr(int32(1)), ServiceName: "cg", Selector: selector(), Template: podTemplate()}}
		}},
		{"apps", "v1", "daemonsets", true, apps, func(ns string) runtime.Object {
			return &appsv1.DaemonSet{ObjectMeta: objectMeta(name, ns, true), Spec: appsv1.DaemonSetSpec{Selector: selector(), Template: podTemplate()}}
		}},
		{"apps", "v1", "controllerrevisions", true, apps, func(ns string) runtime.Object {
			return &appsv1.ControllerRevision{ObjectMeta: objectMeta(name, ns, true), Revision: 3, Data: runtime.RawExtension{Raw: []byte(`{"spec":{"replicas":1}}`)}}
		}},
		{"batch", "v1", "jobs", true, batch, func(ns string) runtime.Object {
			template := podTemplate()
			template.Spec.RestartPolicy = corev1.RestartPolicyNever
			return &batchv1.Job{ObjectMeta: objectMeta(name, ns, true), Spec: batchv1.JobSpec{Template: template, BackoffLimit: ptr(int32(2))}}
		}},
		{"batch", "v1", "cronjobs", true, batch, func(ns string) runtime.Object {
			template := podTemplate()
			template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
			return &batchv1.CronJob{ObjectMeta: objectMeta(name, ns, true), Spec: batchv1.CronJobSpec{
				Schedule: "*/5 * * * *", JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: template}},
			}}
		}},
		{"autoscaling", "v2", "horizontalpodautoscalers", true, hpa2, func(ns string) runtime.Object {
			return &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: objectMeta(name+"-v2", ns, true), Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
				MinReplicas:    ptr(int32(1)), MaxReplicas: 3,
				Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
					Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr(int32(70))},
				}}},
			}}
		}},
		{"autoscaling", "v1", "horizontalpodautoscalers", true, hpa1, func(ns string) runtime.Object {
			return &autoscalingv1.HorizontalPodAutoscaler{ObjectMeta: objectMeta(name+"-v1", ns, true), Spec: autoscalingv1.HorizontalPodAutoscalerSpec{
				ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
				MinReplicas:    ptr(int32(1)), MaxReplicas: 3, TargetCPUUtilizationPercentage: ptr(int32(60)),
			}}
		}},
		{"coordination.k8s.io", "v1", "leases", true, coordination, func(ns string) runtime.Object {
			return &coordinationv1.Lease{ObjectMeta: objectMeta(name, ns, true), Spec: coordinationv1.LeaseSpec{
				HolderIdentity: ptr("holder"), LeaseDurationSeconds: ptr(int32(15)), AcquireTime: &now, RenewTime: &now,
			}}
		}},
		{"events.k8s.io", "v1", "events", true, events, func(ns string) runtime.Object {
			return &eventsv1.Event{
				ObjectMeta: objectMeta(name+"-ev", ns, true), EventTime: now,
				ReportingController: "example.com/client-go-test", ReportingInstance: "client-go-test-1",
				Action: "Test", Reason: "Tested", Note: "client-go wrote this", Type: corev1.EventTypeNormal,
				Regarding: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: "p", APIVersion: "v1"},
			}
		}},
		{"discovery.k8s.io", "v1", "endpointslices", true, discovery, func(ns string) runtime.Object {
			return &discoveryv1.EndpointSlice{
				ObjectMeta: objectMeta(name, ns, true), AddressType: discoveryv1.AddressTypeIPv4,
				Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.1.2.3"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr(true)}}},
				Ports:     []discoveryv1.EndpointPort{{Name: ptr("http"), Port: ptr(int32(80)), Protocol: ptr(corev1.ProtocolTCP)}},
			}
		}},
		{"policy", "v1", "poddisruptionbudgets", true, policy, func(ns string) runtime.Object {
			minAvailable := intstr.FromInt32(1)
			return &policyv1.PodDisruptionBudget{ObjectMeta: objectMeta(name, ns, true), Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &minAvailable, Selector: selector()}}
		}},
		{"networking.k8s.io", "v1", "ingresses", true, networking, func(ns string) runtime.Object {
			backend := networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}
			return &networkingv1.Ingress{ObjectMeta: objectMeta(name, ns, true), Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{
				Host: "cg.example.com",
				IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{
					Path: "/", PathType: ptr(networkingv1.PathTypePrefix), Backend: backend,
				}}}},
			}}}}
		}},
		{"networking.k8s.io", "v1", "ingressclasses", false, networking, func(ns string) runtime.Object {
			return &networkingv1.IngressClass{ObjectMeta: objectMeta(name, ns, false), Spec: networkingv1.IngressClassSpec{Controller: "example.com/ingress"}}
		}},
		{"networking.k8s.io", "v1", "networkpolicies", true, networking, func(ns string) runtime.Object {
			return &networkingv1.NetworkPolicy{ObjectMeta: objectMeta(name, ns, true), Spec: networkingv1.NetworkPolicySpec{
				PodSelector: *selector(), PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			}}
		}},
		{"networking.k8s.io", "v1", "ipaddresses", false, networking, func(ns string) runtime.Object {
			return &networkingv1.IPAddress{
				ObjectMeta: objectMeta("10.250.0."+itoa(ipOctet), ns, false),
				Spec:       networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Resource: "services", Namespace: ns, Name: "web"}},
			}
		}},
		{"networking.k8s.io", "v1", "servicecidrs", false, networking, func(ns string) runtime.Object {
			return &networkingv1.ServiceCIDR{ObjectMeta: objectMeta(name, ns, false), Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{"10.251." + itoa(ipOctet) + ".0/24"}}}
		}},
		{"scheduling.k8s.io", "v1", "priorityclasses", false, scheduling, func(ns string) runtime.Object {
			return &schedulingv1.PriorityClass{ObjectMeta: objectMeta(name, ns, false), Value: 1000, Description: "client-go test"}
		}},
		{"storage.k8s.io", "v1", "storageclasses", false, storage, func(ns string) runtime.Object {
			return &storagev1.StorageClass{ObjectMeta: objectMeta(name, ns, false), Provisioner: "example.com/provisioner", Parameters: map[string]string{"type": "fast"}}
		}},
		{"rbac.authorization.k8s.io", "v1", "roles", true, rbac, func(ns string) runtime.Object {
			return &rbacv1.Role{ObjectMeta: objectMeta(name, ns, true), Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list"}}}}
		}},
		{"rbac.authorization.k8s.io", "v1", "clusterroles", false, rbac, func(ns string) runtime.Object {
			return &rbacv1.ClusterRole{ObjectMeta: objectMeta(name, ns, false), Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/healthz"}, Verbs: []string{"get"}}}}
		}},
		{"rbac.authorization.k8s.io", "v1", "rolebindings", true, rbac, func(ns string) runtime.Object {
			return &rbacv1.RoleBinding{
				ObjectMeta: objectMeta(name, ns, true), RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: name},
				Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "alice"}},
			}
		}},
		{"rbac.authorization.k8s.io", "v1", "clusterrolebindings", false, rbac, func(ns string) runtime.Object {
			return &rbacv1.ClusterRoleBinding{
				ObjectMeta: objectMeta(name, ns, false), RoleRef: rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: name},
				Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Name: "default", Namespace: ns}},
			}
		}},
		{"certificates.k8s.io", "v1", "certificatesigningrequests", false, certificates, func(ns string) runtime.Object {
			return &certificatesv1.CertificateSigningRequest{ObjectMeta: objectMeta(name, ns, false), Spec: certificatesv1.CertificateSigningRequestSpec{
				Request: certificateRequest(), SignerName: "example.com/signer", Usages: []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature},
				ExpirationSeconds: ptr(int32(3600)),
			}}
		}},
		{"storage.k8s.io", "v1", "csidrivers", false, storage, func(ns string) runtime.Object {
			return &storagev1.CSIDriver{ObjectMeta: objectMeta(name+".example.com", ns, false), Spec: storagev1.CSIDriverSpec{AttachRequired: ptr(false)}}
		}},
		{"storage.k8s.io", "v1", "csinodes", false, storage, func(ns string) runtime.Object {
			return &storagev1.CSINode{ObjectMeta: objectMeta(name, ns, false), Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{{
				Name: "cg.example.com", NodeID: "node-1", TopologyKeys: []string{"topology.example.com/zone"},
			}}}}
		}},
		{"storage.k8s.io", "v1", "csistoragecapacities", true, storage, func(ns string) runtime.Object {
			return &storagev1.CSIStorageCapacity{ObjectMeta: objectMeta(name, ns, true), StorageClassName: "fast", Capacity: ptr(resource.MustParse("10Gi"))}
		}},
		{"storage.k8s.io", "v1", "volumeattachments", false, storage, func(ns string) runtime.Object {
			return &storagev1.VolumeAttachment{ObjectMeta: objectMeta(name, ns, false), Spec: storagev1.VolumeAttachmentSpec{
				Attacher: "cg.example.com", NodeName: "node-1", Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: ptr("pv-1")},
			}}
		}},
		{"storage.k8s.io", "v1", "volumeattributesclasses", false, storage, func(ns string) runtime.Object {
			return &storagev1.VolumeAttributesClass{ObjectMeta: objectMeta(name, ns, false), DriverName: "cg.example.com", Parameters: map[string]string{"iops": "3000"}}
		}},
		{"node.k8s.io", "v1", "runtimeclasses", false, node, func(ns string) runtime.Object {
			return &nodev1.RuntimeClass{ObjectMeta: objectMeta(name, ns, false), Handler: "runc"}
		}},
		{"resource.k8s.io", "v1", "deviceclasses", false, dra, func(ns string) runtime.Object {
			return &resourcev1.DeviceClass{ObjectMeta: objectMeta(name, ns, false), Spec: resourcev1.DeviceClassSpec{
				Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: `device.driver == "cg.example.com"`}}},
			}}
		}},
		{"resource.k8s.io", "v1", "resourceclaims", true, dra, func(ns string) runtime.Object {
			return &resourcev1.ResourceClaim{ObjectMeta: objectMeta(name, ns, true), Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
				Requests: []resourcev1.DeviceRequest{{Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "cg"}}},
			}}}
		}},
		{"resource.k8s.io", "v1", "resourceclaimtemplates", true, dra, func(ns string) runtime.Object {
			return &resourcev1.ResourceClaimTemplate{ObjectMeta: objectMeta(name, ns, true), Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
				Requests: []resourcev1.DeviceRequest{{Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "cg"}}},
			}}}}
		}},
		{"resource.k8s.io", "v1", "resourceslices", false, dra, func(ns string) runtime.Object {
			return &resourcev1.ResourceSlice{ObjectMeta: objectMeta(name, ns, false), Spec: resourcev1.ResourceSliceSpec{
				Driver: "cg.example.com", NodeName: ptr("node-1"), Pool: resourcev1.ResourcePool{Name: "pool", ResourceSliceCount: 1},
				Devices: []resourcev1.Device{{Name: "gpu-0"}},
			}}
		}},
		{"admissionregistration.k8s.io", "v1", "validatingadmissionpolicies", false, admissionregistration, func(ns string) runtime.Object {
			return &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: objectMeta(name, ns, false), Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{"example.com"}, APIVersions: []string{"v1"}, Resources: []string{"widgets"}},
				}}}},
				Validations: []admissionregistrationv1.Validation{{Expression: "object.spec.size <= 3"}},
			}}
		}},
		{"admissionregistration.k8s.io", "v1", "validatingadmissionpolicybindings", false, admissionregistration, func(ns string) runtime.Object {
			return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: objectMeta(name, ns, false), Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
				PolicyName: name, ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
			}}
		}},
		{"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations", false, admissionregistration, func(ns string) runtime.Object {
			return &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: objectMeta(name, ns, false), Webhooks: []admissionregistrationv1.MutatingWebhook{{
				Name: "m.cg.example.com", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr("https://127.0.0.1:1/m")},
				Rules:       []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create}, Rule: admissionregistrationv1.Rule{APIGroups: []string{"example.com"}, APIVersions: []string{"v1"}, Resources: []string{"widgets"}}}},
				SideEffects: ptr(admissionregistrationv1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"}, FailurePolicy: ptr(admissionregistrationv1.Ignore),
			}}}
		}},
		{"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", false, admissionregistration, func(ns string) runtime.Object {
			return &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: objectMeta(name, ns, false), Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name: "v.cg.example.com", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: ptr("https://127.0.0.1:1/v")},
				Rules:       []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create}, Rule: admissionregistrationv1.Rule{APIGroups: []string{"example.com"}, APIVersions: []string{"v1"}, Resources: []string{"widgets"}}}},
				SideEffects: ptr(admissionregistrationv1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"}, FailurePolicy: ptr(admissionregistrationv1.Ignore),
			}}}
		}},
		{"flowcontrol.apiserver.k8s.io", "v1", "prioritylevelconfigurations", false, flowcontrol, func(ns string) runtime.Object {
			return &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: objectMeta(name, ns, false), Spec: flowcontrolv1.PriorityLevelConfigurationSpec{
				Type: flowcontrolv1.PriorityLevelEnablementLimited, Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
					NominalConcurrencyShares: ptr(int32(1)), LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject},
				},
			}}
		}},
		{"flowcontrol.apiserver.k8s.io", "v1", "flowschemas", false, flowcontrol, func(ns string) runtime.Object {
			return &flowcontrolv1.FlowSchema{ObjectMeta: objectMeta(name, ns, false), Spec: flowcontrolv1.FlowSchemaSpec{
				PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: name}, MatchingPrecedence: 5000,
				Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
					Subjects:      []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: "cg"}}},
					ResourceRules: []flowcontrolv1.ResourcePolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}, Namespaces: []string{"*"}}},
				}},
			}}
		}},
		{"apiextensions.k8s.io", "v1", "customresourcedefinitions", false, apiextensions, func(ns string) runtime.Object {
			group := "cg-" + suffix + ".example.com"
			return &apiextensionsv1.CustomResourceDefinition{ObjectMeta: objectMeta("widgets."+group, ns, false), Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: group, Scope: apiextensionsv1.NamespaceScoped,
				Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true, Schema: &apiextensionsv1.CustomResourceValidation{
					OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"size": {Type: "integer"}}},
					}},
				}}},
			}}
		}},
		// A remote APIService whose Service does not exist: stored and served, never available.
		// Its group is not the CRD's, whose local APIService the server makes while the CRD stays.
		{"apiregistration.k8s.io", "v1", "apiservices", false, apiregistration, func(ns string) runtime.Object {
			group := "cg-" + suffix + "-remote.example.com"
			return &apiregistrationv1.APIService{ObjectMeta: objectMeta("v1."+group, ns, false), Spec: apiregistrationv1.APIServiceSpec{
				Group: group, Version: "v1", GroupPriorityMinimum: 1000, VersionPriority: 15, InsecureSkipTLSVerify: true,
				Service: &apiregistrationv1.ServiceReference{Namespace: "default", Name: "cg-missing", Port: ptr(int32(443))},
			}}
		}},
	}
}
