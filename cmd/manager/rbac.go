package main

// The manager's own permissions; each controller declares what it needs above
// its Reconcile. The artifact server reviews a publishing client's token and
// access (see addArtifactServer), the metrics endpoint a scraper's (see
// metricsOptions).
//
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch;list
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create
