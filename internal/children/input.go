package children

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// MaxInputBytes bounds an input a pod reads from its own annotation. The API
// server allows 256 KiB of annotations on one object in all: half leaves the
// rest to others' annotations.
const MaxInputBytes = 128 << 10

// InputVolume is a downward API volume with one file, file, holding the
// value of the pod's annotation: the pod reads its input from its own
// template, with no ConfigMap to create or for the kubelet to watch.
func InputVolume(volume, file, annotation string) corev1.Volume {
	return corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
		Items: []corev1.DownwardAPIVolumeFile{{
			Path:     file,
			FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['" + annotation + "']"},
		}},
	}}}
}

// CheckInputSize refuses an input over MaxInputBytes: what names it, shrink
// says which fields of the spec make it smaller.
func CheckInputSize(what string, input string, shrink string) error {
	if len(input) <= MaxInputBytes {
		return nil
	}
	return fmt.Errorf("%s is %d KiB, over the %d KiB a pod's annotation carries: %s",
		what, (len(input)+1023)/1024, MaxInputBytes/1024, shrink)
}
