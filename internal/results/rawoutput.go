package results

import "bytes"

// Helpers the parsers of tools' raw output (packages fio and mpi) share.

// FirstLine is the first non-blank line of a tool's output, cut to 80 bytes,
// for an error that says what the output starts with.
func FirstLine(data []byte) string {
	line, _, _ := bytes.Cut(bytes.TrimSpace(data), []byte("\n"))
	if len(line) > 80 {
		line = line[:80]
	}
	return string(line)
}

// FindJSONObject returns the offset, at or after from, of the first '{' that
// opens a JSON object whose first key is key: how a tool's JSON report starts
// ({"fio version": …}, IOR's {"Version": …}), so that text printed around it
// is skipped.
func FindJSONObject(data []byte, from int, key string) (int, bool) {
	// The key without its opening quote: a rarer first byte than the quote,
	// so the search is faster.
	needle := []byte(key + `"`)
	for i := from; ; {
		k := bytes.Index(data[i:], needle)
		if k < 0 {
			return 0, false
		}
		k += i
		i = k + len(needle)
		if k == from || data[k-1] != '"' {
			continue
		}
		if before := bytes.TrimRight(data[from:k-1], " \t\r\n"); len(before) > 0 && before[len(before)-1] == '{' {
			return from + len(before) - 1, true
		}
	}
}

// JSONObjectLen returns the length of the JSON object that data starts with,
// counting brackets outside strings, or -1 when it never closes.
func JSONObjectLen(data []byte) int {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		}
	}
	return -1
}
