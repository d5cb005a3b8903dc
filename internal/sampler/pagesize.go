package sampler

import "os"

var pageSize = os.Getpagesize()
