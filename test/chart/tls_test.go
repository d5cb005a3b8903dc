package chart_test

import (
	"crypto/x509"
	"encoding/pem"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// The chart's own certificate of the HTTPS artifact server (no cert-manager):
// signed by its ca.crt for every name of the manager's Service, and mounted
// where --artifact-server-cert-dir says.
func TestArtifactServerTLS(t *testing.T) {
	objs := render(t, "argo: {enabled: true}")
	var secret corev1.Secret
	find(t, objs, "Secret", "benchwright-artifact-server-tls").into(t, &secret)
	if secret.Type != corev1.SecretTypeTLS {
		t.Errorf("Secret type %q, want %q", secret.Type, corev1.SecretTypeTLS)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(secret.Data["ca.crt"]) {
		t.Fatalf("ca.crt holds no certificate: %q", secret.Data["ca.crt"])
	}
	block, _ := pem.Decode(secret.Data["tls.crt"])
	if block == nil || len(secret.Data["tls.key"]) == 0 {
		t.Fatal("tls.crt or tls.key is empty")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"benchwright-manager", "benchwright-manager.benchwright-system.svc", "benchwright-manager.benchwright-system.svc.cluster.local"} {
		if _, err := cert.Verify(x509.VerifyOptions{DNSName: name, Roots: roots}); err != nil {
			t.Errorf("the certificate for %s: %v", name, err)
		}
	}

	var d appsv1.Deployment
	find(t, objs, "Deployment", "benchwright-manager").into(t, &d)
	if got := secretVolume(d.Spec.Template.Spec.Volumes, "/var/run/secrets/benchwright/artifact-server-tls", d.Spec.Template.Spec.Containers[0].VolumeMounts); got != secret.Name {
		t.Errorf("the manager mounts Secret %q at its cert dir, want %q", got, secret.Name)
	}

	// An admin's Secret (cert-manager's) replaces the generated one.
	objs = render(t, "artifactServer: {tls: {secretName: my-cert}}")
	if s := ofKind(objs, "Secret"); len(s) != 0 {
		t.Errorf("with tls.secretName the chart renders %v", s)
	}
	find(t, objs, "Deployment", "benchwright-manager").into(t, &d)
	if got := secretVolume(d.Spec.Template.Spec.Volumes, "/var/run/secrets/benchwright/artifact-server-tls", d.Spec.Template.Spec.Containers[0].VolumeMounts); got != "my-cert" {
		t.Errorf("the manager mounts Secret %q, want my-cert", got)
	}
}

// secretVolume is the Secret mounted at path.
func secretVolume(vols []corev1.Volume, path string, mounts []corev1.VolumeMount) string {
	i := slices.IndexFunc(mounts, func(m corev1.VolumeMount) bool { return m.MountPath == path })
	if i < 0 {
		return ""
	}
	j := slices.IndexFunc(vols, func(v corev1.Volume) bool { return v.Name == mounts[i].Name })
	if j < 0 || vols[j].Secret == nil {
		return ""
	}
	return vols[j].Secret.SecretName
}
