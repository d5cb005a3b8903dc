package integration

import (
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func clientKey(obj client.Object) client.ObjectKey { return client.ObjectKeyFromObject(obj) }
