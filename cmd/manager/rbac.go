package main

// The manager's own permissions; each controller declares what it needs above
// its Reconcile.
//
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
