package benchrun

// Outcome ends a benchmark: Failed with the reason and message. Any other
// error of a reconcile is retried with backoff.
type Outcome struct {
	Reason, Message string
}

func (o *Outcome) Error() string { return o.Reason + ": " + o.Message }

// Fail returns an Outcome error.
func Fail(reason, message string) error { return &Outcome{Reason: reason, Message: message} }
