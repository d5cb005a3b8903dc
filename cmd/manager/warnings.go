package main

import (
	"context"
	"strings"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// apiWarnings logs the API server's warnings as controller-runtime does,
// except the one every MPIJob create brings: Go writes a template's empty
// creationTimestamp as null, which the MPIJob CRD's schema does not list,
// so the server warns of an unknown field it then drops. That warning is
// about our serializer, never about the spec.
type apiWarnings struct {
	next rest.WarningHandlerWithContext
}

func newAPIWarnings() *apiWarnings {
	return &apiWarnings{next: log.NewKubeAPIWarningLogger(log.KubeAPIWarningLoggerOptions{})}
}

// HandleWarningHeaderWithContext implements rest.WarningHandlerWithContext.
func (w *apiWarnings) HandleWarningHeaderWithContext(ctx context.Context, code int, agent, text string) {
	if strings.HasPrefix(text, `unknown field "`) && strings.HasSuffix(text, `.metadata.creationTimestamp"`) {
		return
	}
	w.next.HandleWarningHeaderWithContext(ctx, code, agent, text)
}
