package util

import (
	"regexp"

	corev1 "k8s.io/api/core/v1"
)

// annotationField is a downward API field path of one annotation.
var annotationField = regexp.MustCompile(`^metadata\.annotations\['([^']+)'\]$`)

// DownwardFile is what the kubelet writes as file (a path inside the volume)
// of the pod's downward API volumes that names one of its annotations, as
// benchwright's inputs do; false when no volume has it.
func DownwardFile(pod *corev1.Pod, file string) (string, bool) {
	for _, v := range pod.Spec.Volumes {
		if v.DownwardAPI == nil {
			continue
		}
		for _, item := range v.DownwardAPI.Items {
			if item.Path != file || item.FieldRef == nil {
				continue
			}
			if m := annotationField.FindStringSubmatch(item.FieldRef.FieldPath); m != nil {
				value, ok := pod.Annotations[m[1]]
				return value, ok
			}
		}
	}
	return "", false
}
