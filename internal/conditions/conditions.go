// Package conditions sets the conditions of every benchwright kind through
// the getter and setter each API type has (cluster-api's style), stamping
// them with the object's generation.
package conditions

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Getter is an object with conditions.
type Getter interface {
	GetConditions() []metav1.Condition
}

// Setter is an object whose conditions can be set: every benchwright kind.
type Setter interface {
	Getter
	GetGeneration() int64
	SetConditions([]metav1.Condition)
}

// Set sets one condition of obj, observed at its current generation. The
// transition time changes only when the status does.
func Set(obj Setter, typ string, status metav1.ConditionStatus, reason, message string) {
	conds := obj.GetConditions()
	meta.SetStatusCondition(&conds, metav1.Condition{
		Type: typ, Status: status, Reason: reason, Message: message, ObservedGeneration: obj.GetGeneration(),
	})
	obj.SetConditions(conds)
}

// IsTrue tells whether obj's condition typ is True.
func IsTrue(obj Getter, typ string) bool {
	return meta.IsStatusConditionTrue(obj.GetConditions(), typ)
}

// Get returns obj's condition typ, or nil.
func Get(obj Getter, typ string) *metav1.Condition {
	return meta.FindStatusCondition(obj.GetConditions(), typ)
}
